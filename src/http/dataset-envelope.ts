/**
 * What a dataset answer says about itself, besides its records: the envelope's `meta`, the ETag
 * tied to the data, the file name of a CSV or Parquet download, its content type and headers, and
 * whether it streams. `dataset-handler.ts` decides when to answer; this file, what the answer
 * carries.
 */
import { createHash } from "node:crypto";
import { type Dataset, firstDayRead } from "../datasets/dataset.ts";
import type { StoreSnapshot } from "../store/reading-store.ts";
import { dayKey, DAY_MS, formatInstant, HOUR_MS } from "../time.ts";
import { formatZoned, periodRange, ZONE_OFFSET_MS } from "../periods.ts";
import type { Instant } from "./instant.ts";
import { type Format, PARQUET_TYPE } from "./negotiation.ts";
import { MAX_SPAN_DAYS, type ParsedRange } from "./range-query.ts";

/** The `meta.schema_version` of every envelope. */
export const SCHEMA_VERSION = "1.0";

/**
 * The header every answer from a store of generated sample data carries (docs/api.md: "Sample
 * data"), beside `meta.sample` in JSON; CSV readers check it. Answers from real data have neither.
 */
export const SAMPLE_HEADERS: Readonly<Record<string, string>> = { "Data-Source": "sample" };

/** The instants the records of a range cover: the range at 1h, its whole periods at 1d. */
function covered(range: ParsedRange): { from: number; to: number } {
  if (range.interval === "1h") return { from: range.start, to: range.end };
  return periodRange(range.start, range.end, range.period ?? "1d", ZONE_OFFSET_MS[range.zone]);
}

// Whether a range asks for anything beyond what release 1.6 could (so that older ETags stay as they were).
const plain = (range: ParsedRange) =>
  range.asked === range.interval &&
  range.zone === "UTC" &&
  range.agg === "mean" &&
  range.columns === undefined;

/** An instant as the range's zone writes it. */
function stampIn(range: ParsedRange, ms: number, withMillis = false): string {
  return formatZoned(ms, ZONE_OFFSET_MS[range.zone], withMillis);
}

/** Whether the answer streams: a CSV or Parquet hourly range longer than JSON's bound. */
export function streams(range: ParsedRange, format: Format): boolean {
  return (
    format !== "json" && range.interval === "1h" && range.end - range.start > MAX_SPAN_DAYS["1h"] * DAY_MS
  );
}

export function entityTag(
  dataset: Dataset,
  range: ParsedRange,
  format: Format,
  snapshot: StoreSnapshot,
): string {
  const { from, to } = covered(range);
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify([
      dataset.id,
      SCHEMA_VERSION,
      dataset.meta(range.interval, range.options),
      range.interval,
      range.start,
      range.end,
      range.startFractional,
      range.endFractional,
      range.options,
      format,
      snapshot.lastActual,
      // Only a sample store's tags change: a real store's stay as they were.
      ...(snapshot.sample ? ["sample"] : []),
      ...(plain(range) ? [] : [range.asked, range.zone, range.agg, range.columns ?? null]),
    ]),
  );
  for (let day = firstDayRead(dataset, from); day < to; day += DAY_MS)
    hash.update(snapshot.manifest.get(dayKey(day))?.hash ?? "-");
  return hash.digest("base64url").slice(0, 32);
}

function filename(dataset: Dataset, range: ParsedRange, format: Format): string {
  const stamp = (ms: number) => formatInstant(ms).slice(0, 19).replace(/[-:]/g, "") + "Z";
  return `${dataset.id}_${range.asked}_${stamp(range.start)}_${stamp(range.end)}.${format}`;
}

// The envelope's `meta` (docs/api.md: "`meta`").
export function envelopeMeta(
  dataset: Dataset,
  range: ParsedRange,
  lastAvailable: number | null,
  sample: boolean,
  asOf?: Instant,
) {
  return {
    dataset: dataset.id,
    interval: range.asked,
    timezone: range.zone,
    schema_version: SCHEMA_VERSION,
    derived: dataset.derived[range.interval],
    ...dataset.meta(range.interval, range.options),
    ...(range.interval === "1d" && range.agg !== "mean" ? { aggregate: range.agg } : {}),
    start: stampIn(range, range.start, range.startFractional),
    end: stampIn(range, range.end, range.endFractional),
    last_available: lastAvailable === null ? null : stampIn(range, lastAvailable),
    data_delay: lastAvailable === null || covered(range).to > lastAvailable + HOUR_MS,
    ...(asOf === undefined ? {} : { as_of: stampIn(range, asOf.ms, asOf.fractional) }),
    ...(sample ? { sample: true } : {}),
  };
}

/**
 * The envelope's `meta` as JSON text, made only when a body is rendered (a kept body never asks).
 * A function rather than a closure written where it is used: tsx keeps the names of functions, so
 * an arrow function assigned to a property or a variable is given its name when it is created,
 * which is an `Object.defineProperty` call on every request (a thirtieth of a cached answer).
 */
export function envelopeMetaText(
  dataset: Dataset,
  range: ParsedRange,
  lastAvailable: number | null,
  sample: boolean,
  asOf?: Instant,
): () => string {
  return () => JSON.stringify(envelopeMeta(dataset, range, lastAvailable, sample, asOf));
}

export const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  json: "application/json",
  csv: "text/csv; charset=utf-8",
  parquet: PARQUET_TYPE,
};

// The answer's own headers: a file's name, and the sample data's mark.
export function responseHeaders(format: Format, sample: boolean, dataset: Dataset, range: ParsedRange) {
  if (format === "json") return sample ? SAMPLE_HEADERS : undefined;
  const disposition = { "Content-Disposition": `attachment; filename="${filename(dataset, range, format)}"` };
  return sample ? { ...disposition, ...SAMPLE_HEADERS } : disposition;
}
