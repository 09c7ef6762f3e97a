/** The home page's chart over the last 7 stored days, drawn once per store version. */
import { generationMixHour } from "../datasets/generation-mix.ts";
import { forEachStoredHour } from "../datasets/stored-hours.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { DAY_MS, dayKey, dayStart } from "../time.ts";
import type { Html } from "./html.ts";
import { type MixHour, mixChart } from "./mix-chart.ts";

/** How many stored days the chart covers, ending with the newest. */
export const CHART_DAYS = 7;

/**
 * The hourly generation mix of the last `CHART_DAYS` days up to the day of the newest actual
 * reading (forecast-only days at the end hold no generation).
 */
export function recentMixHours(store: ReadingStore): MixHour[] {
  const { manifest, lastActual } = store.refresh();
  const newest = lastActual === null ? [...manifest.keys()].at(-1) : dayKey(lastActual);
  if (newest === undefined) return [];
  const to = dayStart(newest) + DAY_MS;
  const hours: MixHour[] = [];
  forEachStoredHour(store, to - CHART_DAYS * DAY_MS, to, (hour, reading) => {
    const mw = generationMixHour(reading);
    if (mw !== null) hours.push({ hour, mw });
  });
  return hours;
}

/** A chart source that redraws only when an ingest changed the store. */
export function createRecentMixChart(store: ReadingStore): () => Html {
  let drawn: { version: number; chart: Html } | undefined;
  return () => {
    const { version } = store.refresh();
    if (drawn?.version !== version) drawn = { version, chart: mixChart(recentMixHours(store)) };
    return drawn.chart;
  };
}
