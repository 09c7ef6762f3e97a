/**
 * A start-up self-check: every dataset computes and serializes the newest stored week once,
 * at both intervals, before the server listens. It proves the store can be read, and it gets
 * the read path's code compiled, so the first real request does not pay for that. It does not
 * fill any cache: a request for other days still reads them from disk.
 */
import type { ReadingStore } from "../store/reading-store.ts";
import { dayStart, DAY_MS } from "../time.ts";
import { type Dataset, INTERVALS } from "./dataset.ts";

const WEEK = 7 * DAY_MS;

/** Runs the check; returns how long it took, or throws what the store could not do. */
export function warmUp(store: ReadingStore, datasets: readonly Dataset[]): number {
  const started = performance.now();
  const keys = [...store.refresh().manifest.keys()];
  if (keys.length === 0) return 0;
  const end = dayStart(keys.at(-1)!) + DAY_MS;
  for (const dataset of datasets) {
    for (const interval of INTERVALS) {
      JSON.stringify(dataset.records(store, { start: end - WEEK, end, interval, options: {} }));
    }
  }
  return performance.now() - started;
}
