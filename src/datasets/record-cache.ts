/**
 * Serialize once, serve many times: the records of each stored UTC day, per dataset, interval
 * and options, kept with their JSON text within a byte bound. An entry is keyed by the content
 * hashes of every day its records depend on (the day itself, and the days before it that a
 * dataset looks back on: `firstDayRead`), so an ingest that changes any of them makes the entry unreachable;
 * no explicit invalidation is needed. Days missing from the cache are computed in contiguous
 * runs, so daily aggregation runs once per run, not once per day.
 */
import { Lru } from "../cache/lru.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { dayKey, dayRange, DAY_MS } from "../time.ts";
import { type DataRecord, type Dataset, firstDayRead, type RangeRequest } from "./dataset.ts";

/** A served record, its time (UTC ms of its hour or day) and, once rendered, its JSON text. */
export interface CachedRecord {
  readonly at: number;
  readonly record: DataRecord;
  json?: string;
}

export interface RecordCache {
  /** The records of a range, in ascending time order, as `dataset.records` would give them. */
  records(dataset: Dataset, store: ReadingStore, request: RangeRequest): CachedRecord[];
  /** Bytes held (an estimate), for memory checks. */
  readonly weight: number;
}

// A record and its JSON text take about this much memory.
const BYTES_PER_RECORD = 600;
// Missing days are computed at most this many at a time, which bounds the working memory of one
// request (a 20-year daily range would otherwise aggregate 175,000 hours in one table).
const MAX_RUN_DAYS = 62;

// The instant of a record's `ts` (YYYY-MM-DDThh:…) or `date`; Date.parse is several times slower.
function recordTime(stamp: string): number {
  const hour = stamp.length > 10 ? Number(stamp.slice(11, 13)) : 0;
  return Date.UTC(Number(stamp.slice(0, 4)), Number(stamp.slice(5, 7)) - 1, Number(stamp.slice(8, 10)), hour);
}

// The cache key of one day's records: what was asked, and the content of every day they read.
function key(dataset: Dataset, store: ReadingStore, request: RangeRequest, day: number): string {
  const { format: _format, ...options } = request.options;
  let k = `${dataset.id}|${request.interval}|${JSON.stringify(options)}|${dayKey(day)}`;
  for (let d = firstDayRead(dataset, day); d <= day; d += DAY_MS)
    k += `|${store.entry(dayKey(d))?.hash ?? "-"}`;
  return k;
}

type Slot = { day: number; key: string; records?: CachedRecord[] };

// Computes the slots without records in runs of contiguous days, each run in one call.
function fill(
  days: Slot[],
  compute: (from: number, to: number) => DataRecord[],
  hourly: boolean,
  store: (slot: Slot) => void,
) {
  for (let i = 0; i < days.length;) {
    if (days[i]!.records !== undefined) {
      i++;
      continue;
    }
    let j = i;
    while (
      j + 1 < days.length &&
      j + 1 - i < MAX_RUN_DAYS &&
      days[j + 1]!.records === undefined &&
      days[j + 1]!.day === days[j]!.day + DAY_MS
    )
      j++;
    const run = days.slice(i, j + 1);
    const byDay = new Map<number, CachedRecord[]>(run.map((d) => [d.day, []]));
    for (const record of compute(run[0]!.day, run.at(-1)!.day + DAY_MS)) {
      const at = recordTime(hourly ? (record.ts as string) : (record.date as string));
      byDay.get(Math.floor(at / DAY_MS) * DAY_MS)?.push({ at, record });
    }
    for (const d of run) {
      d.records = byDay.get(d.day)!;
      store(d);
    }
    i = j + 1;
  }
}

/** A cache holding at most about `maxBytes` of records. */
export function createRecordCache(options: { maxBytes: number }): RecordCache {
  const cache = new Lru<string, CachedRecord[]>(
    options.maxBytes,
    (day) => 100 + day.length * BYTES_PER_RECORD,
  );

  function records(dataset: Dataset, store: ReadingStore, request: RangeRequest): CachedRecord[] {
    const hourly = request.interval === "1h";
    const { from, to } = hourly
      ? { from: Math.floor(request.start / DAY_MS) * DAY_MS, to: Math.ceil(request.end / DAY_MS) * DAY_MS }
      : dayRange(request.start, request.end);
    const days: Slot[] = [];
    for (let day = from; day < to; day += DAY_MS) {
      if (store.entry(dayKey(day)) === undefined) continue; // no readings, no records
      const k = key(dataset, store, request, day);
      days.push({ day, key: k, records: cache.get(k) });
    }

    // Compute the missing days in contiguous runs.
    const compute = (start: number, end: number) => dataset.records(store, { ...request, start, end });
    fill(days, compute, hourly, (d) => cache.set(d.key, d.records!));

    const out: CachedRecord[] = [];
    for (const d of days) {
      for (const r of d.records!) if (!hourly || (r.at >= request.start && r.at < request.end)) out.push(r);
    }
    return out;
  }

  return {
    records,
    get weight() {
      return cache.weight;
    },
  };
}
