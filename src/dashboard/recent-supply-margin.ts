/**
 * The home page's supply margin: available capacity and residual demand, hourly, over the mix
 * chart's days (recent-days.ts), from the `grid.supply_margin` dataset, with the gap between them
 * shaded and the week's tightest hour named. Drawn on the server as SVG, once per store version.
 */
import { supplyMargin } from "../datasets/supply-margin.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { DAY_MS } from "../time.ts";
import { dayTicks, fixed, gridLines, HEIGHT, type Scale, timeScale, WIDTH } from "./chart-axes.ts";
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

// Runs of consecutive hours: a gap in the data is a gap in the drawing.
function runs(hours: readonly MarginHour[]): MarginHour[][] {
  const out: MarginHour[][] = [];
  for (const h of hours) {
    const run = out.at(-1);
    if (run !== undefined && h.hour - run.at(-1)!.hour === 3_600_000) run.push(h);
    else out.push([h]);
  }
  return out;
}

const line = (run: readonly MarginHour[], scale: Scale, of: (h: MarginHour) => number) =>
  run.map((h) => `${fixed(scale.x(h.hour))},${fixed(scale.y(of(h)))}`);

const points = (top: readonly string[], bottom: readonly string[]) =>
  [...top, ...[...bottom].reverse()].join(" ");

// The margin (capacity above demand, green), any shortfall (demand above capacity, red), and the
// two lines. Each shape lies between the lower and the higher line, so a run where demand crosses
// capacity never shades its shortfall as margin.
function drawing(hours: readonly MarginHour[], scale: Scale): Html[] {
  return runs(hours).map((run) => {
    const available = line(run, scale, (h) => h.available);
    const demand = line(run, scale, (h) => h.demand);
    const covered = line(run, scale, (h) => Math.min(h.demand, h.available));
    const short = run.some((h) => h.demand > h.available)
      ? html`<polygon
          class="margin-short"
          points="${points(
            line(run, scale, (h) => Math.max(h.demand, h.available)),
            available,
          )}"
        />`
      : html``;
    return html`<polygon class="margin-gap" points="${points(available, covered)}" />${short}<polyline
        class="margin-available"
        points="${available.join(" ")}"
      /><polyline class="margin-demand" points="${demand.join(" ")}" />`;
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
  const first = hours[0]!.hour;
  const last = Math.max(hours.at(-1)!.hour, first + DAY_MS / 24);
  const scale = timeScale(first, last, Math.max(...hours.map((h) => Math.max(h.available, h.demand))));
  return html`<svg
      class="chart"
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-labelledby="margin-title margin-desc"
    >
      <title id="margin-title">Available capacity and residual demand, GW</title>
      <desc id="margin-desc">
        Hourly available capacity (with units not yet commercial) and residual demand, in gigawatts; the
        shaded gap between them is the supply margin, in red where demand exceeded capacity.
      </desc>
      ${gridLines(scale)}${drawing(hours, scale)}${dayTicks(first, last, scale)}
    </svg>
    <ul class="legend">
      <li><span class="swatch margin-available"></span>Available capacity</li>
      <li><span class="swatch margin-demand"></span>Residual demand</li>
      <li><span class="swatch margin-gap"></span>Margin</li>
      ${
        hours.some((h) => h.demand > h.available)
          ? html`<li><span class="swatch margin-short"></span>Shortfall</li>`
          : html``
      }
    </ul>
    ${tightest(hours)}`;
}

/** A source of the chart that redraws only when an ingest changed the store. */
export function createRecentMarginChart(store: ReadingStore): () => Html {
  return drawnPerStoreVersion(store, () => marginChart(recentMarginHours(store)));
}
