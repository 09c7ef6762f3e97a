/** Serves one dataset: validates the range, computes the records, writes the envelope. */
import type { Dataset } from "../datasets/dataset.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { dayRange, formatInstant, HOUR_MS } from "../time.ts";
import { parseRangeQuery } from "./range-query.ts";
import type { Handler } from "./router.ts";

/** The `meta.schema_version` of every envelope. */
export const SCHEMA_VERSION = "1.0";

/** A handler for `dataset`, reading from `store`. */
export function datasetHandler(dataset: Dataset, store: ReadingStore): Handler {
  return (_req, res, ctx) => {
    const range = parseRangeQuery(ctx.url.searchParams, dataset.parameters);
    const snapshot = store.refresh();
    const data = dataset.records(store, range);
    // The hours a response covers: the range itself at 1h, whole days at 1d.
    const coveredEnd = range.interval === "1h" ? range.end : dayRange(range.start, range.end).to;
    const lastAvailable = snapshot.lastActual;
    const { derived, ...extra } = dataset.meta(range.interval);
    const meta = {
      dataset: dataset.id,
      interval: range.interval,
      timezone: "UTC",
      schema_version: SCHEMA_VERSION,
      derived,
      ...extra,
      start: formatInstant(range.start, range.startFractional),
      end: formatInstant(range.end, range.endFractional),
      last_available: lastAvailable === null ? null : formatInstant(lastAvailable),
      data_delay: lastAvailable === null || coveredEnd > lastAvailable + HOUR_MS,
    };
    const body = JSON.stringify({ meta, data });
    res.writeHead(200, {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body),
    });
    res.end(body);
  };
}
