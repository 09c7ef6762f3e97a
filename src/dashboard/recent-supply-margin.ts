/**
 * The home page's supply margin: available capacity and residual demand, hourly, over the mix
 * chart's days (recent-days.ts), from the `grid.supply_margin` dataset, with the gap between them
 * shaded (the explorer's time chart) and the week's tightest hour named, once per store version.
 */
import { supplyMargin } from "../datasets/supply-margin.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { HOUR_MS } from "../time.ts";
import { timeChart } from "./explore/time-chart.ts";
import { html, type Html } from "./html.ts";
import { count } from "./pages/format.ts";
import { drawnPerStoreVersion, recentWindow } from "./recent-days.ts";

/** One hour: its start (UTC ms), available capacity and residual demand, MW. */
export interface MarginHour {
  readonly hour: number;
  readonly available: number;
  readonly demand: number;
}

/** The hours of the recent window that have both figures. */
export function recentMarginHours(store: ReadingStore): MarginHour[] {
  const recent = recentWindow(store);
  if (recent === undefined) return [];
  const request = { start: recent.from, end: recent.to, interval: "1h" as const, options: {} };
  return supplyMargin.hourlyRecords(store, request).flatMap((r) => {
    const available = r.available_capacity_incl_non_comm_mw as number | null;
    const demand = r.residual_demand_mw as number | null;
    return available === null || demand === null ? [] : [{ hour: Date.parse(r.ts), available, demand }];
  });
}

/** The week's tightest hour, in words: its spare capacity, or by how much demand exceeded it. */
function tightest(hours: readonly MarginHour[]): Html {
  const worst = hours.reduce((a, b) => (b.available - b.demand < a.available - a.demand ? b : a));
  const margin = worst.available - worst.demand;
  const at = new Date(worst.hour).toISOString().slice(0, 16).replace("T", " ");
  const share = `${((100 * Math.abs(margin)) / worst.demand).toFixed(1)}% of residual demand`;
  return margin >= 0
    ? html`<p class="hint">Tightest hour: ${at} UTC, ${count(Math.round(margin))} MW spare (${share}).</p>`
    : html`<p class="hint">
        Tightest hour: ${at} UTC, residual demand ${count(Math.round(-margin))} MW above available capacity
        (${share}).
      </p>`;
}

/** The chart over `hours` (ascending), or a line saying there is nothing to draw. */
export function marginChart(hours: readonly MarginHour[]): Html {
  if (hours.length < 2) {
    return html`<p class="empty">
      No available capacity in the stored days: it comes from the portal's capacity file, which
      <code>make pull</code> brings (and which the portal has not linked since March 2026).
    </p>`;
  }
  // Each hour after a gap in the data begins a run of its own: a gap in the data is one in the drawing.
  const withGaps = hours.flatMap((h, i) =>
    i > 0 && h.hour - hours[i - 1]!.hour > HOUR_MS ? [{ hour: h.hour - HOUR_MS, gap: true }, h] : [h],
  );
  const points = (of: (h: MarginHour) => number) =>
    withGaps.map((h) => [h.hour, "gap" in h ? null : of(h)] as const);
  const chart = timeChart({
    title: "Available capacity and residual demand",
    unit: "MW",
    tz: "UTC",
    series: [
      { label: "Available capacity", cls: "margin-available", points: points((h) => h.available) },
      { label: "Residual demand", cls: "margin-demand", points: points((h) => h.demand) },
    ],
    between: {
      above: { cls: "margin-gap", label: "Margin" },
      below: { cls: "margin-short", label: "Shortfall" },
    },
  })!;
  return html`${chart}${tightest(hours)}`;
}

/** A source of the chart that redraws only when an ingest changed the store. */
export function createRecentMarginChart(store: ReadingStore): () => Html {
  return drawnPerStoreVersion(store, () => marginChart(recentMarginHours(store)));
}
