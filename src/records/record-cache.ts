/**
 * Serialize once, serve many times: the records of each stored UTC day, per dataset, interval
 * and options, kept as their JSON text within a byte bound. An entry is keyed by the content
 * hashes of every day its records depend on (the day itself, and the days before it that a
 * dataset looks back on: `firstDayRead`), so an ingest that changes any of them makes the entry unreachable;
 * no explicit invalidation is needed. Days missing from the cache are computed in contiguous
 * runs, so daily aggregation runs once per run, not once per day.
 *
 * A day is kept flat: one string holding its records' JSON texts joined by commas, and two typed
 * arrays giving each record's time and where its text ends. The garbage collector marks a handful
 * of objects a day rather than a record object, its numbers and its text per hour (about 17 an
 * hour); with a year of hours cached that was 150,000 objects to mark in every major GC, which
 * stalls the event loop (docs/performance.md). CSV, which needs the records themselves, parses
 * them back from the text: JSON gives back every finite number exactly.
 */
import { Lru } from "../cache/lru.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { dayKey, dayRange, DAY_MS } from "../time.ts";
import { type DataRecord, type Dataset, firstDayRead, type RangeRequest } from "./dataset.ts";

export interface RecordCache {
  /**
   * The JSON texts of a range's records, in ascending time order, joined by commas: what
   * `dataset.records` gives, each as JSON.stringify writes it (the inside of a response's `data`).
   */
  json(dataset: Dataset, store: ReadingStore, request: RangeRequest): string;
  /** The records of a range, in ascending time order, equal to what `dataset.records` gives. */
  records(dataset: Dataset, store: ReadingStore, request: RangeRequest): DataRecord[];
  /** Bytes held, for memory checks. */
  readonly weight: number;
}

/** One day's records, flat: their texts joined by commas, each one's time and the end of its text. */
class DayRecords {
  constructor(
    readonly json: string,
    readonly times: Float64Array,
    readonly ends: Uint32Array,
  ) {}

  static of(records: readonly { at: number; record: DataRecord }[]): DayRecords {
    const times = new Float64Array(records.length);
    const ends = new Uint32Array(records.length);
    const texts: string[] = [];
    let length = 0;
    records.forEach(({ at, record }, i) => {
      const text = JSON.stringify(record);
      length += (i === 0 ? 0 : 1) + text.length;
      texts.push(text);
      times[i] = at;
      ends[i] = length;
    });
    return new DayRecords(texts.join(","), times, ends);
  }

  /** The texts of the records timed in [start, end), joined by commas ("" when none). */
  within(start: number, end: number): string {
    const { times, ends } = this;
    let first = 0;
    while (first < times.length && times[first]! < start) first++;
    let last = times.length;
    while (last > first && times[last - 1]! >= end) last--;
    if (first === 0 && last === times.length) return this.json;
    if (first === last) return "";
    return this.json.slice(first === 0 ? 0 : ends[first - 1]! + 1, ends[last - 1]);
  }

  /** About the bytes held: the text (ASCII, a byte a character) and the arrays. */
  get weight(): number {
    return 100 + this.json.length + 12 * this.times.length;
  }
}

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

type Slot = { day: number; key: string; records?: DayRecords };

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
    const byDay = new Map<number, { at: number; record: DataRecord }[]>(run.map((d) => [d.day, []]));
    for (const record of compute(run[0]!.day, run.at(-1)!.day + DAY_MS)) {
      const at = recordTime(hourly ? (record.ts as string) : (record.date as string));
      byDay.get(Math.floor(at / DAY_MS) * DAY_MS)?.push({ at, record });
    }
    for (const d of run) {
      d.records = DayRecords.of(byDay.get(d.day)!);
      store(d);
    }
    i = j + 1;
  }
}

/** A cache holding at most about `maxBytes` of records. */
export function createRecordCache(options: { maxBytes: number }): RecordCache {
  const cache = new Lru<string, DayRecords>(options.maxBytes, (day) => day.weight);

  function json(dataset: Dataset, store: ReadingStore, request: RangeRequest): string {
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

    const texts: string[] = [];
    for (const d of days) {
      // A daily range's days are whole; an hourly range may begin or end within a day.
      const text = hourly ? d.records!.within(request.start, request.end) : d.records!.json;
      if (text !== "") texts.push(text);
    }
    return texts.join(",");
  }

  return {
    json,
    records: (dataset, store, request) => JSON.parse(`[${json(dataset, store, request)}]`) as DataRecord[],
    get weight() {
      return cache.weight;
    },
  };
}
