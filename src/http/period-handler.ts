/**
 * Serves a dataset of published periods (`datasets/availability-periods.ts`) from the revisions of
 * its files, with the datasets' range rules, `tz`, `columns`, `as_of`, the three formats and
 * validators: the ETag hashes the request and each file's revisions, so a new download changes it.
 */
import { newestPeriod, type PeriodDataset, periodRecords } from "../datasets/availability-periods.ts";
import type { DataRecord, FieldDoc } from "../datasets/dataset.ts";
import { formatZoned, ZONE_OFFSET_MS } from "../periods.ts";
import { DamagedPeriodsError, type PeriodRevisions } from "../store/period-revisions.ts";
import { formatInstant } from "../time.ts";
import { project } from "./columns.ts";
import { recordsToCsv } from "./csv.ts";
import { AS_OF_PARAMETER, cacheControlAt, FORMAT_PARAMETER } from "./dataset-handler.ts";
import { CONTENT_TYPES, SAMPLE_HEADERS, SCHEMA_VERSION } from "./dataset-envelope.ts";
import { EntityTag } from "./entity-tag.ts";
import { badRequest, HttpError } from "./http-error.ts";
import type { Instant } from "./instant.ts";
import { chooseFormat, type Format } from "./negotiation.ts";
import { type ParsedRange, parseRangeQuery } from "./range-query.ts";
import type { Handler } from "./router.ts";
import { send, VARY_ACCEPT } from "./send.ts";

const PARAMETERS = { format: FORMAT_PARAMETER, as_of: AS_OF_PARAMETER };

/** The revisions a dataset's answer reads: one per file, or none beside real readings. */
type Sources = readonly PeriodRevisions[];

// The fields of the answer: all, or the date and those `columns` names; a 400 for an unknown name.
function fieldsOf(dataset: PeriodDataset, range: ParsedRange): readonly FieldDoc[] {
  const [date, ...rest] = dataset.fields["1d"];
  if (range.columns === undefined) return dataset.fields["1d"];
  const picked = [date!];
  for (const name of new Set(range.columns)) {
    if (name === date!.name) continue;
    const field = rest.find((f) => f.name === name);
    if (field === undefined) {
      throw badRequest(
        "invalid_parameter",
        `Unknown column '${name}' in 'columns'. Valid columns here: ${rest.map((f) => f.name).join(", ")}.`,
      );
    }
    picked.push(field);
  }
  return picked;
}

// The instant the request reads as of: as_of, checked against the downloads kept, or now.
function asOfFor(sources: Sources, asOf: Instant | undefined, now: number): number {
  if (asOf === undefined) return now;
  if (asOf.ms > now) {
    throw badRequest(
      "invalid_parameter",
      `'as_of' is in the future: ${formatInstant(asOf.ms, true)}. Ask for a past instant.`,
    );
  }
  const firsts = sources.map((s) => s.firstReceived()).filter((ms): ms is number => ms !== null);
  const first = firsts.length === 0 ? null : Math.min(...firsts);
  if (first === null || asOf.ms < first) {
    const since =
      first === null ? "none is kept yet" : `the first was received at ${formatInstant(first, true)}`;
    throw badRequest(
      "invalid_parameter",
      `'as_of' is before the first download of this dataset's files: ${since}.`,
    );
  }
  return asOf.ms;
}

interface Answer {
  readonly records: DataRecord[];
  readonly fields: readonly FieldDoc[];
  readonly meta: Record<string, unknown>;
}

function answer(dataset: PeriodDataset, sources: Sources, range: ParsedRange, asOf: number, given?: Instant) {
  const kept = sources.map((s) => s.asOf(asOf));
  const fields = fieldsOf(dataset, range);
  const all = periodRecords(dataset, kept, { from: range.start, to: range.end, zone: range.zone });
  const records = range.columns === undefined ? all : all.map((r) => project(r, fields));
  const received = sources.map((s) => s.lastReceived(asOf)).filter((ms): ms is number => ms !== null);
  const last = received.length === 0 ? null : Math.max(...received);
  const offset = ZONE_OFFSET_MS[range.zone];
  const meta = {
    dataset: dataset.id,
    interval: dataset.interval,
    timezone: range.zone,
    schema_version: SCHEMA_VERSION,
    derived: false,
    ...dataset.meta("1d"),
    start: formatZoned(range.start, offset, range.startFractional),
    end: formatZoned(range.end, offset, range.endFractional),
    last_available: newestPeriod(kept),
    last_received: last === null ? null : formatZoned(last, offset, last % 1000 !== 0),
    ...(given === undefined ? {} : { as_of: formatZoned(given.ms, offset, given.fractional) }),
  };
  return { records, fields, meta };
}

async function parquetBody(a: Answer): Promise<Buffer> {
  const { ParquetEncoder, parquetColumns } = await import("./parquet.ts"); // loaded by the first Parquet answer
  const parts: Buffer[] = [];
  const encoder = new ParquetEncoder(parquetColumns(a.fields), JSON.stringify(a.meta), (bytes) => {
    parts.push(bytes);
  });
  await encoder.add(a.records);
  await encoder.end();
  return Buffer.concat(parts);
}

function render(a: Answer, format: Format): string | Promise<Buffer> {
  if (format === "csv") return recordsToCsv(a.records, a.fields);
  if (format === "parquet") return parquetBody(a);
  return JSON.stringify({ meta: a.meta, data: a.records });
}

function filename(dataset: PeriodDataset, range: ParsedRange, format: Format): string {
  const stamp = (ms: number) => formatInstant(ms).slice(0, 19).replace(/[-:]/g, "") + "Z";
  return `${dataset.id}_${dataset.interval}_${stamp(range.start)}_${stamp(range.end)}.${format}`;
}

// A damaged revisions file is a 503, never a partial answer; anything else goes on as it is.
function answerFor(error: unknown): unknown {
  if (!(error instanceof DamagedPeriodsError)) return error;
  return new HttpError(
    503,
    "The stored weekly and monthly figures are damaged and are not served until they are repaired. Try again later.",
    { headers: { "Retry-After": "600" } },
  );
}

/** The handler of a dataset of published periods, reading each of its files' revisions. */
export function periodHandler(
  dataset: PeriodDataset,
  revisions: Sources,
  options: { now?: () => number; sampleStore?: () => boolean } = {},
): Handler {
  const now = options.now ?? Date.now;
  const rules = { id: dataset.id, intervals: [dataset.interval], settings: dataset.takes ?? [] };
  return (req, reply, ctx) => {
    const range = parseRangeQuery(ctx.url.searchParams, PARAMETERS, () => true, rules);
    const format = chooseFormat(range.options.format as Format | undefined, req.headers.accept);
    try {
      // Generated figures are served only in a sample store, and never beside Eskom's figures.
      const real = revisions.filter((r) => !r.sample && r.revisions().length > 0);
      const sample = real.length === 0 && options.sampleStore?.() === true;
      const sources = sample ? revisions : revisions.filter((r) => !r.sample);
      const given = range.options.as_of as Instant | undefined;
      const asOf = asOfFor(sources, given, now());
      const versions = sources.map((s) => s.version);
      const etag = EntityTag.of(
        JSON.stringify([dataset.id, SCHEMA_VERSION, range, format, versions, sample]),
        32,
      );
      const made = () => {
        const a = answer(dataset, sources, range, asOf, given);
        return render(sample ? { ...a, meta: { ...a.meta, sample: true } } : a, format);
      };
      const last = Math.max(0, ...sources.map((s) => s.lastReceived(asOf) ?? 0));
      const disposition: Record<string, string> =
        format === "json"
          ? {}
          : { "Content-Disposition": `attachment; filename="${filename(dataset, range, format)}"` };
      const sent = send(req, reply, {
        body: { render: made },
        contentType: CONTENT_TYPES[format],
        etag,
        lastModified: last === 0 ? null : last,
        cacheControl: cacheControlAt(now()),
        vary: VARY_ACCEPT,
        headers: { ...disposition, ...(sample ? SAMPLE_HEADERS : {}) },
        compress: format !== "parquet",
      });
      return sent?.catch((error: unknown) => {
        throw answerFor(error);
      });
    } catch (error) {
      throw answerFor(error);
    }
  };
}
