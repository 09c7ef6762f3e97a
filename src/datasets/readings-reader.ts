/**
 * How the datasets of stored hours (`readings`, and grid stress `computed` from them) are read:
 * from the reading store as it is (through the record cache, which keeps each UTC day's records
 * serialized), or as it was at `as_of` (its revisions undone, computed afresh). A long range is
 * rendered a day (or about a month of periods) at a time, so that no request waits behind
 * another's work; the pieces join to exactly what one piece for the whole range would be.
 */
import { formatZoned, nextPeriod, periodRange, ZONE_OFFSET_MS } from "../periods.ts";
import { coveredRange, type Dataset, firstDayRead, type RangeRequest } from "../records/dataset.ts";
import type { RecordCache } from "../records/record-cache.ts";
import type { AsOfFloor, RecordReader, RecordSnapshot, RecordView } from "../records/record-reader.ts";
import { type ReadingStore, StoreUnavailableError } from "../store/reading-store.ts";
import { storeAsOf } from "../store/as-of-view.ts";
import { dayKey, dayRange, DAY_MS, HOUR_MS } from "../time.ts";
import { PROVENANCE_COLUMN, REPORT_COLUMNS, requireColumn } from "../source/columns.ts";
import { forEachStoredHour } from "../records/stored-hours.ts";

/** Days of hourly records per piece: the dearest dataset (grid stress) takes about 0.5 ms a day here. */
const HOURLY_PIECE_DAYS = 1;
/** Days of daily records per piece. */
const DAILY_PIECE_DAYS = 31;

/**
 * Whether the record cache can serve a range: it keeps UTC stamps, and daily records of UTC days
 * averaged as the dataset's daily fields. Other zones, periods and aggregates are computed afresh.
 */
export function cacheable(range: RangeRequest): boolean {
  if ((range.zone ?? "UTC") !== "UTC") return false;
  return range.interval === "1h" || ((range.period ?? "1d") === "1d" && (range.agg ?? "mean") === "mean");
}

/**
 * The range cut into pieces, in order: hours at whole UTC days, a day a piece; UTC days 31 a
 * piece; longer periods, or days in another zone, in runs of whole periods of about a month.
 */
export function pieces(range: RangeRequest): RangeRequest[] {
  const hourly = range.interval === "1h";
  const period = range.period ?? "1d";
  if (!hourly && !cacheable(range)) return periodPieces(range);
  const { from, to } = hourly ? { from: range.start, to: range.end } : dayRange(range.start, range.end);
  const step = (hourly ? HOURLY_PIECE_DAYS : DAILY_PIECE_DAYS) * DAY_MS;
  const out: RangeRequest[] = [];
  for (let start = from; start < to;) {
    const end = Math.min(to, Math.floor(start / DAY_MS) * DAY_MS + step);
    out.push({ ...range, start, end, period });
    start = end;
  }
  return out;
}

function periodPieces(range: RangeRequest): RangeRequest[] {
  const period = range.period ?? "1d";
  const offset = ZONE_OFFSET_MS[range.zone ?? "UTC"];
  const { from, to } = periodRange(range.start, range.end, period, offset);
  const out: RangeRequest[] = [];
  for (let start = from; start < to;) {
    let end = nextPeriod(start, period, offset);
    while (end < to && end - start < DAILY_PIECE_DAYS * DAY_MS) end = nextPeriod(end, period, offset);
    out.push({ ...range, start, end, period });
    start = end;
  }
  return out;
}

const MARK = requireColumn(PROVENANCE_COLUMN);

// The bits of `from_powerbi_report` for the columns the dataset's hourly fields read.
function reportMask(dataset: Dataset): number {
  const read = new Set(dataset.fields["1h"].flatMap((f) => f.columns ?? []));
  return REPORT_COLUMNS.reduce((mask, name, bit) => (read.has(name) ? mask | (1 << bit) : mask), 0);
}

/**
 * For a dataset that reads a column a PowerBI report may fill: the hours of the range where a value
 * it reads came from a report (`from_powerbi_report`: how many, the first and last, in the range's
 * zone), or nothing.
 */
function reportMeta(dataset: Dataset, store: Pick<ReadingStore, "day">, range: RangeRequest) {
  const mask = reportMask(dataset);
  if (mask === 0) return {};
  const { from, to } = coveredRange(range);
  let hours = 0;
  let first = 0;
  let last = 0;
  forEachStoredHour(store, from, to, (hour, reading) => {
    if (Number.isNaN(reading[MARK]!) || (reading[MARK]! & mask) === 0) return;
    if (hours++ === 0) first = hour;
    last = hour;
  });
  if (hours === 0) return {};
  const offset = ZONE_OFFSET_MS[range.zone ?? "UTC"];
  return {
    from_powerbi_report: { hours, first: formatZoned(first, offset), last: formatZoned(last, offset) },
  };
}

/** Where `as_of` may begin over the store: its first recorded ingest. */
export function storeAsOfFloor(store: ReadingStore): AsOfFloor {
  return {
    first: store.history().began,
    what: "the first recorded ingest",
    none: "the store has no recorded ingest yet",
    since: "it began at",
  };
}

/** The reader of a dataset of stored hours, through `cache` when the store is read as it is. */
export function readingsReader(dataset: Dataset, store: ReadingStore, cache: RecordCache): RecordReader {
  return {
    streams: true,
    snapshot(): RecordSnapshot {
      const held = store.refresh();
      return {
        version: String(held.version),
        sample: held.sample,
        modified: held.modified,
        unavailable: held.unavailable === undefined ? undefined : new StoreUnavailableError(held.unavailable),
        tag: () => held.lastActual,
        *tagParts(from, to) {
          for (let day = firstDayRead(dataset, from); day < to; day += DAY_MS)
            yield held.manifest.get(dayKey(day))?.hash ?? "-";
        },
        asOfFloor: () => storeAsOfFloor(store),
        view(asOf): RecordView {
          const then = asOf === undefined ? undefined : storeAsOf(store, store.history(), asOf);
          const last = then === undefined ? held.lastActual : then.refresh().lastActual;
          const kept = (piece: RangeRequest) => then === undefined && cacheable(piece);
          return {
            records: (piece) =>
              kept(piece) ? cache.records(dataset, store, piece) : dataset.records(then ?? store, piece),
            json: (piece) => (kept(piece) ? cache.json(dataset, store, piece) : undefined),
            pieces,
            status: (range) => {
              const offset = ZONE_OFFSET_MS[range.zone ?? "UTC"];
              return {
                last_available: last === null ? null : formatZoned(last, offset),
                data_delay: last === null || coveredRange(range).to > last + HOUR_MS,
                ...reportMeta(dataset, then ?? store, range),
              };
            },
            modified: held.modified,
          };
        },
        changed: () => store.changedSince(held.version),
      };
    },
  };
}
