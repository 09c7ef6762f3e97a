/**
 * Requests per key, scope and UTC day, counted by the server for the dashboard: allowed ones (the
 * ones the limiter counted) and throttled ones. Counts gather in memory and are added to
 * `DATA_DIR/request-counts.json` at least once a minute and on shutdown, under a lock and by
 * addition, so a second process's counts are merged rather than overwritten; with REDIS_URL they
 * are added into Redis's copy instead, which every VM follows. The file keeps the last 35 days.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileStamp } from "../files/file-stamp.ts";
import * as v from "valibot";
import type { DocumentStore, KeptFile } from "../files/document-store.ts";
import { type KeptDocument, keptDocument } from "../files/kept-document.ts";
import { DAY_MS, dayKey } from "../time.ts";

export const COUNTS_FILE = "request-counts.json";
const COUNTS_DOCUMENT: KeptFile = { name: COUNTS_FILE, lock: ".request-counts.lock" };
const KEEP_DAYS = 35;
const FLUSH_MS = 60_000;

/** Allowed and throttled requests. */
export interface Tally {
  allowed: number;
  throttled: number;
}

/** Counts by day (`YYYY-MM-DD`), key id and scope; each pair is `[allowed, throttled]`. */
type Counts = Record<string, Record<string, Record<string, [number, number]>>>;

const Pair = v.tuple([
  v.pipe(v.number(), v.integer(), v.minValue(0)),
  v.pipe(v.number(), v.integer(), v.minValue(0)),
]);
const CountsSchema = v.object({
  format: v.literal(1),
  days: v.record(v.string(), v.record(v.string(), v.record(v.string(), Pair))),
});

export interface RequestCounter {
  /** Counts one request of a key in a scope. */
  count(keyId: string, scope: string, allowed: boolean): void;
  /** Totals per day and scope over the given keys, for the given days; stored and pending alike. */
  totals(keyIds: ReadonlySet<string>, days: readonly string[]): Record<string, Record<string, Tally>>;
  /** Allowed requests per key over the given days, every scope together; stored and pending alike. */
  allowedByKey(days: readonly string[]): ReadonlyMap<string, number>;
  /** Adds the pending counts to the file now. */
  flush(): Promise<void>;
  /** Stops the flush timer (after a last `flush`). */
  close(): void;
}

// The [allowed, throttled] pair of a day, key and scope, made when missing.
function cellOf(into: Counts, day: string, key: string, scope: string): [number, number] {
  const keys = (into[day] ??= {});
  const scopes = (keys[key] ??= {});
  return (scopes[scope] ??= [0, 0]);
}

function add(into: Counts, day: string, key: string, scope: string, pair: readonly [number, number]): void {
  const cell = cellOf(into, day, key, scope);
  cell[0] += pair[0];
  cell[1] += pair[1];
}

function addAll(into: Counts, from: Counts): void {
  for (const [day, keys] of Object.entries(from))
    for (const [key, scopes] of Object.entries(keys))
      for (const [scope, pair] of Object.entries(scopes)) add(into, day, key, scope, pair);
}

function parseCounts(text: string): Counts {
  const result = v.safeParse(CountsSchema, JSON.parse(text));
  if (!result.success) throw new SyntaxError(`Cannot read "${COUNTS_FILE}": ${result.issues[0].message}`);
  return result.output.days;
}

function readCounts(path: string): Counts {
  return existsSync(path) ? parseCounts(readFileSync(path, "utf8")) : {};
}

// `counts` plus `batch`, without the days past the ones kept, as the file's text.
function merged(counts: Counts, batch: Counts, t: number): string {
  addAll(counts, batch);
  const oldest = dayKey(t - (KEEP_DAYS - 1) * DAY_MS);
  for (const day of Object.keys(counts)) if (day < oldest) delete counts[day];
  return JSON.stringify({ format: 1, days: counts }) + "\n";
}

/** The last `n` UTC days up to and including the day of `t`, oldest first. */
export function lastDays(t: number, n: number): string[] {
  return Array.from({ length: n }, (_, i) => dayKey(t - (n - 1 - i) * DAY_MS));
}

/** What an open counter keeps between calls. */
interface OpenCounter extends KeptDocument {
  /** Counts not yet written. */
  pending: Counts;
  /** A batch whose write failed, and the name it is written under until it is known to be in. */
  unsent: { counts: Counts; once: string } | undefined;
  /** The file's counts as last read, by the file's identity then. */
  stored: { stamp: string; counts: Counts };
  /** The UTC day of `now`, formatted once a day rather than once a request. */
  day: { key: string; start: number; end: number };
}

/** A counter persisting to `dir`; `onError` hears of failed writes (counts are kept for the next). */
export function createRequestCounter(options: {
  dir: string;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** Where counts are added: DATA_DIR's file (the default), or with REDIS_URL Redis's copy, so every VM's requests count. */
  documents?: DocumentStore;
}): RequestCounter {
  const open: OpenCounter = {
    ...keptDocument(options, COUNTS_FILE),
    pending: {},
    unsent: undefined,
    stored: { stamp: "", counts: {} },
    day: { key: "", start: Infinity, end: -Infinity },
  };
  const timer = setInterval(() => void flush(open).catch(() => {}), FLUSH_MS).unref(); // reported
  return {
    count(keyId, scope, allowed) {
      cellOf(open.pending, today(open), keyId, scope)[allowed ? 0 : 1]++;
    },
    totals: (keyIds, days) => totals(sources(open), keyIds, days),
    allowedByKey: (days) => allowedByKey(sources(open), days),
    flush: () => flush(open),
    close: () => clearInterval(timer),
  };
}

function today(open: OpenCounter): string {
  const t = open.now();
  if (t >= open.day.end || t < open.day.start) {
    const start = Math.floor(t / DAY_MS) * DAY_MS;
    open.day = { key: dayKey(t), start, end: start + DAY_MS };
  }
  return open.day.key;
}

function storedCounts(open: OpenCounter): Counts {
  const stamp = fileStamp(open.path);
  if (stamp !== open.stored.stamp) {
    try {
      open.stored = { stamp, counts: readCounts(open.path) };
    } catch (error) {
      open.onError(error);
      open.stored = { stamp, counts: {} };
    }
  }
  return open.stored.counts;
}

// The stored counts and those not yet written.
function sources(open: OpenCounter): Counts[] {
  return [storedCounts(open), open.pending, open.unsent?.counts ?? {}];
}

async function flush(open: OpenCounter): Promise<void> {
  // A batch whose write failed goes first, under its name: when that write was applied after all
  // (Redis ran it after its answer timed out), it is not added twice.
  if (open.unsent !== undefined) await write(open, open.unsent);
  open.unsent = undefined;
  if (Object.keys(open.pending).length === 0) return;
  open.unsent = { counts: open.pending, once: randomUUID() };
  open.pending = {};
  await write(open, open.unsent);
  open.unsent = undefined;
}

// Adds `batch` into the stored counts (with Redis, the copy every VM adds into). A failure is
// reported and thrown, the batch kept for the next flush (the timer's, a minute on): a stop must know.
async function write(open: OpenCounter, batch: { counts: Counts; once: string }): Promise<void> {
  const { documents, now, onError } = open;
  const change = (text: string | null) => {
    let counts: Counts = {};
    try {
      if (text !== null) counts = parseCounts(text);
    } catch (error) {
      // A damaged file is replaced rather than blocking every later count; say so.
      onError(error);
    }
    return { text: merged(counts, batch.counts, now()), result: undefined };
  };
  try {
    await documents.update(COUNTS_DOCUMENT, change, batch.once);
  } catch (error) {
    onError(error);
    throw error;
  }
}

// Each day's allowed and throttled requests of the keys in `keyIds`, by scope, over `sources`.
function totals(
  sources: readonly Counts[],
  keyIds: ReadonlySet<string>,
  days: readonly string[],
): Record<string, Record<string, Tally>> {
  const out: Record<string, Record<string, Tally>> = {};
  for (const day of days) out[day] = {};
  for (const source of sources) {
    for (const day of days) {
      for (const [key, scopes] of Object.entries(source[day] ?? {})) {
        if (!keyIds.has(key)) continue;
        for (const [scope, [allowed, throttled]] of Object.entries(scopes)) {
          const tally = (out[day]![scope] ??= { allowed: 0, throttled: 0 });
          tally.allowed += allowed;
          tally.throttled += throttled;
        }
      }
    }
  }
  return out;
}

// Each key's allowed requests over `days`, over `sources`.
function allowedByKey(sources: readonly Counts[], days: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const source of sources) {
    for (const day of days) {
      for (const [key, scopes] of Object.entries(source[day] ?? {})) {
        for (const [allowed] of Object.values(scopes)) out.set(key, (out.get(key) ?? 0) + allowed);
      }
    }
  }
  return out;
}
