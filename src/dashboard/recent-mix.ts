/** The home page's chart: the hourly generation mix over the recent days, drawn once per store version. */
import { generationMixHour } from "../datasets/generation-mix.ts";
import { forEachStoredHour } from "../datasets/stored-hours.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import type { Html } from "./html.ts";
import { type MixHour, mixChart } from "./mix-chart.ts";
import { drawnPerStoreVersion, recentWindow } from "./recent-days.ts";

/** The hourly generation mix of the recent window (see recent-days.ts). */
export function recentMixHours(store: ReadingStore): MixHour[] {
  const recent = recentWindow(store);
  if (recent === undefined) return [];
  const hours: MixHour[] = [];
  forEachStoredHour(store, recent.from, recent.to, (hour, reading) => {
    const mw = generationMixHour(reading);
    if (mw !== null) hours.push({ hour, mw });
  });
  return hours;
}

/** A chart source that redraws only when an ingest changed the store. */
export function createRecentMixChart(store: ReadingStore): () => Html {
  return drawnPerStoreVersion(store, () => mixChart(recentMixHours(store)));
}
