/**
 * How a store's writers take turns, and how a killed one is noticed (docs/data.md: "An interrupted
 * ingest"). Every writer of the store (ingest, the upgrade steps) holds the ingest lock. An ingest
 * also marks itself in `ingest-pending.json` before it changes anything, and removes the mark after
 * its manifest is written. A mark left by a writer that no longer holds the lock is an ingest that
 * was killed, or failed (a full disk: it leaves the mark, so that a first ingest that failed reads
 * as interrupted rather than as an empty store); when the store then has no manifest, or was
 * removing its sample data, nothing in it has been committed: it is *interrupted*, served as 503
 * and never seeded with sample data, until the ingest is run again. With a manifest, the last
 * committed store stands (a day file the killed ingest replaced is a damaged day, as always).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { fsyncDirectory, writeFileAtomic } from "../files/atomic-write.ts";
import { lockHeld } from "../files/lock-file.ts";
import { sampleRemovalPending } from "./sample-mark.ts";

/** The lock every writer of the store holds while it changes the store. */
export const INGEST_LOCK = ".ingest.lock";
/** Present while an ingest is changing the store, or after one was killed or failed before it finished. */
export const PENDING_INGEST_FILE = "ingest-pending.json";
const MANIFEST = "manifest.json";

const PendingSchema = v.object({
  started: v.pipe(v.string(), v.isoTimestamp()),
  files: v.array(v.string()),
});

/** What an interrupted ingest was doing. */
export interface PendingIngest {
  readonly started: string;
  /** The files it was ingesting (names, or paths as given). */
  readonly files: readonly string[];
}

/** Marks an ingest of `files` as under way; call holding the ingest lock, before any change. */
export function markIngestPending(dir: string, files: readonly string[], now: number): void {
  const mark = { started: new Date(now).toISOString(), files };
  writeFileAtomic(join(dir, PENDING_INGEST_FILE), JSON.stringify(mark) + "\n");
  fsyncDirectory(dir);
}

/** Ends the mark, after the manifest is written. */
export function clearIngestPending(dir: string): void {
  rmSync(join(dir, PENDING_INGEST_FILE), { force: true });
}

// The mark, or undefined when there is none (or it cannot be read: then the files are unknown).
function readPending(dir: string): PendingIngest | undefined {
  const path = join(dir, PENDING_INGEST_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return v.parse(PendingSchema, JSON.parse(readFileSync(path, "utf8")));
  } catch {
    return { started: "(unknown)", files: [] };
  }
}

/** The store's write state: `interrupted` (a killed ingest committed nothing), `writing` or `settled`. */
export type WriteState =
  | { readonly state: "settled" }
  | { readonly state: "writing" }
  | { readonly state: "interrupted"; readonly pending: PendingIngest };

/** Whether the store at `dir` can be read now, from its marks and its lock. */
export function writeState(dir: string): WriteState {
  // A removal of sample data cut short by a release before 1.4 left no mark: the same case.
  const pending =
    readPending(dir) ?? (sampleRemovalPending(dir) ? { started: "(unknown)", files: [] } : undefined);
  if (pending === undefined) return { state: "settled" };
  const committed = existsSync(join(dir, MANIFEST)) && !sampleRemovalPending(dir);
  if (committed) return { state: "settled" };
  if (lockHeld(join(dir, INGEST_LOCK))) return { state: "writing" };
  return { state: "interrupted", pending };
}

/** The repair of an interrupted ingest, for messages: run it again. */
export function rerunHint(pending: PendingIngest): string {
  const files = pending.files.map((f) => (/\s/.test(f) ? JSON.stringify(f) : f)).join(" ");
  return pending.files.length === 0
    ? "run the ingest again (npm run ingest -- FILE...) or make pull"
    : `run it again: npm run ingest -- ${files} (or make pull, for the portal's files)`;
}

/**
 * Whether nothing was ever written into the store at `dir`: no manifest, no day or temp file, no
 * history, no mark. Only such a store may be seeded with sample data.
 */
export function neverWritten(dir: string): boolean {
  const readings = join(dir, "readings");
  const empty = (path: string) => !existsSync(path) || readdirSync(path).length === 0;
  return (
    empty(readings) &&
    empty(join(dir, "revisions")) &&
    !existsSync(join(dir, MANIFEST)) &&
    !existsSync(join(dir, PENDING_INGEST_FILE)) &&
    !sampleRemovalPending(dir)
  );
}
