/**
 * What a dataset answer says about itself, besides its records: the envelope's `meta`, the ETag
 * tied to the data, the file name of a CSV or Parquet download, its content type and headers, and
 * whether it streams. `dataset-handler.ts` decides when to answer; this file, what the answer
 * carries, the same for every kind of dataset.
 */
import { createHash } from "node:crypto";
import { coveredRange, type DatasetDoc } from "../records/dataset.ts";
import type { RecordSnapshot, RecordView } from "../records/record-reader.ts";
import { formatZoned, ZONE_OFFSET_MS } from "../periods.ts";
import { DAY_MS, formatInstant } from "../time.ts";
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

/** The ETag's value: a hash of the request and of the version of everything its records read. */
export function entityTag(
  dataset: DatasetDoc,
  range: ParsedRange,
  format: Format,
  snapshot: RecordSnapshot,
): string {
  const { from, to } = coveredRange(range);
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
      snapshot.tag(),
      // Only a sample store's tags change: a real store's stay as they were.
      ...(snapshot.sample ? ["sample"] : []),
      ...(plain(range) ? [] : [range.asked, range.zone, range.agg, range.columns ?? null]),
    ]),
  );
  for (const part of snapshot.tagParts?.(from, to) ?? []) hash.update(part);
  return hash.digest("base64url").slice(0, 32);
}

function filename(dataset: DatasetDoc, range: ParsedRange, format: Format): string {
  const stamp = (ms: number) => formatInstant(ms).slice(0, 19).replace(/[-:]/g, "") + "Z";
  return `${dataset.id}_${range.asked}_${stamp(range.start)}_${stamp(range.end)}.${format}`;
}

/** The envelope's `meta` (docs/api.md: "`meta`"): the request, then how current the view is. */
export function envelopeMeta(
  dataset: DatasetDoc,
  range: ParsedRange,
  view: RecordView,
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
    ...view.status(range),
    ...(asOf === undefined ? {} : { as_of: stampIn(range, asOf.ms, asOf.fractional) }),
    ...(sample ? { sample: true } : {}),
  };
}

export const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  json: "application/json",
  csv: "text/csv; charset=utf-8",
  parquet: PARQUET_TYPE,
};

/** The answer's own headers: a file's name, and the sample data's mark. */
export function responseHeaders(format: Format, sample: boolean, dataset: DatasetDoc, range: ParsedRange) {
  if (format === "json") return sample ? SAMPLE_HEADERS : undefined;
  const disposition = { "Content-Disposition": `attachment; filename="${filename(dataset, range, format)}"` };
  return sample ? { ...disposition, ...SAMPLE_HEADERS } : disposition;
}
