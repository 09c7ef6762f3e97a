/**
 * The server's view of the store. Day files are read on demand, only for the days a range
 * touches, and the most recently used stay in memory (at most `cacheDays`). Each call to
 * `refresh` stats `manifest.json`; when an ingest has replaced it, days whose hash changed are
 * dropped, so a running server sees new data without a restart.
 *
 * A day is served only as the manifest records it: a day file is hashed on every read from disk
 * and a pack slot carries its own checksum. A day whose file is missing, cut or altered throws a
 * `DamagedDayError` (the HTTP layer answers 503) and is listed by `damaged()` until an ingest
 * rewrites it.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type History, readHistory } from "./revisions.ts";
import type { Reading } from "../source/reading.ts";
import { dayKey, HOUR_MS } from "../time.ts";
import { type Day, dayFileName, parseDay } from "./day-file.ts";
import {
  contentHash,
  loadManifest,
  MANIFEST_FILE,
  READINGS_DIR,
  type DayEntry,
  type Manifest,
} from "./manifest.ts";
import { Lru } from "../cache/lru.ts";
import { lockHeld } from "../files/lock-file.ts";
import { type ChangeGate, createRecheck } from "../files/change-gate.ts";
import { isPack, monthOf, PACKS, packName, unpackDay } from "./month-pack.ts";
import { INGEST_LOCK, rerunHint, writeState } from "./pending-ingest.ts";
import { DamagedDayError, type StoreUnavailable } from "./store-errors.ts";

export { DamagedDayError, type StoreUnavailable, StoreUnavailableError } from "./store-errors.ts";

/** What the store held at the last refresh. */
export interface StoreSnapshot {
  readonly manifest: Manifest;
  /** The newest hour (UTC ms) holding an actual reading, or null for an empty store. */
  readonly lastActual: number | null;
  /** Increases whenever the manifest changes. */
  readonly version: number;
  /** When an ingest last changed the store (the manifest's mtime, UTC ms), or null when empty. */
  readonly modified: number | null;
  /** Whether the store holds generated sample data, not the utility's (docs/data.md: "Sample data"). */
  readonly sample: boolean;
  /**
   * Set while nothing of the store can be served: an ingest was killed before it committed
   * (`pending-ingest.ts`), or the store is being written for the first time (`transient`). The
   * manifest is then empty, and dataset requests answer 503, never an empty 200.
   */
  readonly unavailable?: StoreUnavailable;
}

/** Read access to stored readings. */
export interface ReadingStore {
  /** The store's directory (`DATA_DIR`), where its revision history is too. */
  readonly dir: string;
  /** Picks up a new ingest, if any, and returns the current snapshot. */
  refresh(): StoreSnapshot;
  /**
   * Whether the store is no longer the snapshot of `version`, judged by the manifest file itself
   * rather than through the change gate (which looks once per request): for a body that took long
   * to make, between requests.
   */
  changedSince(version: number): boolean;
  /** The stored day with that key, or undefined when there is none. */
  day(key: string): Day | undefined;
  /** The reading of the hour beginning at `hour` (UTC ms), if stored. */
  reading(hour: number): Reading | undefined;
  /** The manifest entry of a day, if stored. */
  entry(key: string): DayEntry | undefined;
  /** Days found damaged since their last ingest, with why. */
  damaged(): ReadonlyMap<string, string>;
  /** Hashes every stored day file against the manifest now; returns the damaged days. */
  verify(): ReadonlyMap<string, string>;
  /** When each day was first stored and the first ingest was: read once per change of the store. */
  history(): History;
}

/** What an open store keeps between calls: its last snapshot, parsed days and damaged days. */
interface OpenStore {
  readonly dir: string;
  readonly manifestPath: string;
  readonly cache: Lru<string, { hash: string; day: Day }>;
  /** Damaged days, by the manifest hash they were judged against. */
  readonly broken: Map<string, { hash: string; why: string }>;
  readonly recheck: () => boolean;
  /** The manifest file's identity at the last refresh. */
  stamp: string;
  snapshot: StoreSnapshot;
  /** The revision history as of a snapshot's version. */
  history: { version: number; history: History } | undefined;
}

/** Opens the store in `dir`, keeping at most `cacheDays` parsed days in memory. */
export function createReadingStore(options: {
  dir: string;
  cacheDays?: number;
  /** The data directory's change gate: `manifest.json` is restatted only when it may have changed. */
  gate?: ChangeGate;
}): ReadingStore {
  const { dir } = options;
  const open: OpenStore = {
    dir,
    manifestPath: join(dir, MANIFEST_FILE),
    cache: new Lru(options.cacheDays ?? 1000),
    broken: new Map(),
    recheck: createRecheck(options.gate),
    stamp: "",
    snapshot: { manifest: new Map(), lastActual: null, version: 0, modified: null, sample: false },
    history: undefined,
  };
  refresh(open);
  return {
    dir,
    refresh: () => refresh(open),
    changedSince(version) {
      return open.snapshot.version !== version || manifestStat(open).stamp !== open.stamp;
    },
    day: (key) => day(open, key),
    reading(hour) {
      const found = day(open, dayKey(hour));
      return found?.hours[Math.floor((hour - found.start) / HOUR_MS)];
    },
    entry: (key) => open.snapshot.manifest.get(key),
    damaged: () => damaged(open),
    verify: () => verify(open),
    history() {
      const { version } = refresh(open);
      if (open.history?.version !== version) open.history = { version, history: readHistory(dir) };
      return open.history.history;
    },
  };
}

// Why nothing of the store may be served now, or undefined (`pending-ingest.ts`).
function unavailable(dir: string): StoreUnavailable | undefined {
  const write = writeState(dir);
  if (write.state === "settled") return undefined;
  if (write.state === "writing") {
    return { transient: true, message: "The store is being written by its first ingest" };
  }
  return {
    transient: false,
    message: `An ingest into the store (started ${write.pending.started}) was killed or failed before it finished, so nothing of it is served; ${rerunHint(write.pending)}`,
  };
}

// The manifest file's identity (a new manifest is renamed into place: another file) and its time.
function manifestStat(open: OpenStore): { stamp: string; modified: number | null } {
  const stat = statSync(open.manifestPath, { throwIfNoEntry: false });
  return stat
    ? { stamp: `${stat.ino}:${stat.size}:${stat.mtimeMs}`, modified: stat.mtimeMs }
    : { stamp: "none", modified: null };
}

// Picks up a new manifest when the gate says it may have changed and its file is another one. A
// store that cannot be served is looked at again on every call: a killed writer changes no file.
function refresh(open: OpenStore): StoreSnapshot {
  const blocked = open.snapshot.unavailable !== undefined;
  if (!blocked && !open.recheck()) return open.snapshot;
  const { stamp: next, modified } = manifestStat(open);
  if (next === open.stamp && !blocked) return open.snapshot;
  const why = unavailable(open.dir);
  if (why !== undefined) {
    const version = open.snapshot.version + (blocked ? 0 : 1);
    open.snapshot = {
      manifest: new Map(),
      lastActual: null,
      version,
      modified: null,
      sample: false,
      unavailable: why,
    };
    open.stamp = "";
    return open.snapshot;
  }
  open.stamp = next;
  const manifest = loadManifest(open.dir);
  // A day rewritten by an ingest is judged afresh.
  for (const [key, { hash }] of open.broken) if (manifest.get(key)?.hash !== hash) open.broken.delete(key);
  let lastActual: number | null = null;
  let sample = false;
  for (const entry of manifest.values()) {
    if (entry.lastActual !== null && (lastActual === null || entry.lastActual > lastActual)) {
      lastActual = entry.lastActual;
    }
    if (entry.sample) sample = true;
  }
  open.snapshot = { manifest, lastActual, version: open.snapshot.version + 1, modified, sample };
  return open.snapshot;
}

function day(open: OpenStore, key: string): Day | undefined {
  const entry = open.snapshot.manifest.get(key);
  if (entry === undefined) return undefined;
  const cached = open.cache.get(key);
  if (cached !== undefined && cached.hash === entry.hash) return cached.day;
  const packed = PACKS ? fromPack(open, key, entry.hash) : undefined;
  if (packed !== undefined) return packed;
  const parsed = parseDay(checkedText(open, key, entry.hash), key);
  open.cache.set(key, { hash: entry.hash, day: parsed });
  return parsed;
}

// The day file's text, if its hash is the manifest's; otherwise the day is damaged.
function checkedText(open: OpenStore, key: string, hash: string): string {
  const file = join(READINGS_DIR, dayFileName(key));
  const fail = (why: string): never => {
    // An ingest in progress replaces day files before it commits the manifest, and one that has
    // committed leaves this snapshot behind (a long body read across it): neither is damage.
    const moved = () => loadManifest(open.dir).get(key)?.hash !== hash;
    if (lockHeld(join(open.dir, INGEST_LOCK)) || moved()) throw new DamagedDayError(key, file, why, true);
    open.broken.set(key, { hash, why: `${file}: ${why}` });
    throw new DamagedDayError(key, file, why);
  };
  let text = "";
  try {
    text = readFileSync(join(open.dir, file), "utf8");
  } catch (error) {
    fail(
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "the file is missing" : (error as Error).message,
    );
  }
  if (contentHash(text) !== hash) {
    fail("its content does not match the manifest's hash (cut, altered or replaced)");
  }
  open.broken.delete(key);
  return text;
}

// Whether the day's text checks; a damaged day is recorded in `broken`, not thrown.
function check(open: OpenStore, key: string, hash: string): void {
  try {
    checkedText(open, key, hash);
  } catch (error) {
    if (!(error instanceof DamagedDayError)) throw error;
  }
}

function verify(open: OpenStore): ReadonlyMap<string, string> {
  for (const [key, entry] of refresh(open).manifest) check(open, key, entry.hash);
  return damaged(open);
}

// The damaged days, each checked again first: a repair shows at once, read or not.
function damaged(open: OpenStore): ReadonlyMap<string, string> {
  for (const [key, { hash }] of [...open.broken]) check(open, key, hash);
  return new Map([...open.broken].map(([key, { why }]) => [key, why]));
}

// Reads the month's pack once and keeps every current day in it: a range reads a file a month.
function fromPack(open: OpenStore, key: string, hash: string): Day | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(open.dir, READINGS_DIR, packName(monthOf(key))));
  } catch {
    return undefined;
  }
  if (!isPack(bytes)) return undefined;
  const month = monthOf(key);
  let found: Day | undefined;
  for (let d = 1; d <= 31; d++) {
    const other = `${month}-${String(d).padStart(2, "0")}`;
    const entry = open.snapshot.manifest.get(other);
    if (entry === undefined) continue;
    if (other !== key && open.cache.get(other)?.hash === entry.hash) continue;
    const unpacked = unpackDay(bytes, other, entry.hash);
    if (unpacked === undefined) continue;
    open.cache.set(other, { hash: entry.hash, day: unpacked });
    if (other === key && entry.hash === hash) found = unpacked;
  }
  return found;
}
