/**
 * The home page's recent window, shared by its chart and its bars: the last `CHART_DAYS` stored
 * days up to the day of the newest actual reading (forecast-only days at the end hold no
 * generation), and a drawing kept until an ingest changes the store.
 */
import type { ReadingStore } from "../store/reading-store.ts";
import { DAY_MS, dayKey, dayStart } from "../time.ts";
import type { Html } from "./html.ts";

/** How many stored days the home page covers, ending with the newest. */
export const CHART_DAYS = 7;

/** The recent window as UTC milliseconds [from, to), or undefined for an empty store. */
export function recentWindow(store: ReadingStore): { from: number; to: number } | undefined {
  const { manifest, lastActual } = store.refresh();
  const newest = lastActual === null ? [...manifest.keys()].at(-1) : dayKey(lastActual);
  if (newest === undefined) return undefined;
  const to = dayStart(newest) + DAY_MS;
  return { from: to - CHART_DAYS * DAY_MS, to };
}

/** `draw`, called again only when an ingest changed the store since its last drawing. */
export function drawnPerStoreVersion(store: ReadingStore, draw: () => Html): () => Html {
  let drawn: { version: number; html: Html } | undefined;
  return () => {
    const { version } = store.refresh();
    if (drawn?.version !== version) drawn = { version, html: draw() };
    return drawn.html;
  };
}
