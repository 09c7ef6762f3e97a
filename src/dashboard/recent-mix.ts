/**
 * The home page's chart: the hourly generation mix over the recent days, stacked as the explorer
 * stacks it (generation mix's chart, in its labels and colours), drawn once per store version.
 */
import { generationMix } from "../datasets/generation-mix.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { type Series, timeChart } from "./explore/time-chart.ts";
import { html, type Html } from "./html.ts";
import { drawnPerStoreVersion, recentWindow } from "./recent-days.ts";

/** The stacked series of the recent window's hours (see recent-days.ts), bottom first; none when empty. */
export function recentMixSeries(store: ReadingStore): Series[] {
  const recent = recentWindow(store);
  if (recent === undefined) return [];
  const records = generationMix.records(store, {
    start: recent.from,
    end: recent.to,
    interval: "1h",
    options: {},
  });
  return (generationMix.chart.order ?? []).map((name) => ({
    label: generationMix.fields["1h"].find((f) => f.name === name)?.label ?? name,
    cls: `fuel-${name}`,
    points: records.map((r) => [Date.parse(r.ts as string), r[name] as number | null] as const),
  }));
}

/** The chart of `series`, or a line saying there is not enough to draw. */
export function mixChart(series: readonly Series[]): Html {
  const chart =
    (series[0]?.points.length ?? 0) < 2
      ? undefined
      : timeChart({ title: "Generation by fuel, stacked", unit: "MW", tz: "UTC", series, stacked: true });
  return chart ?? html`<p class="empty">Not enough stored hours to draw a chart yet.</p>`;
}

/** A chart source that redraws only when an ingest changed the store. */
export function createRecentMixChart(store: ReadingStore): () => Html {
  return drawnPerStoreVersion(store, () => mixChart(recentMixSeries(store)));
}
