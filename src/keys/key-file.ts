/**
 * The key store, `DATA_DIR/keys.json` (mode 0600): one record per key with only its hash. The
 * CLI changes it under a lock with read-modify-write and an atomic replace, so concurrent
 * commands never lose a key; a running server only reads it. Key use times live beside it in
 * `key-usage.json`, written by the server, so that reads stay cheap and the operator's file is
 * never rewritten behind their back.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import type { SharedDocuments } from "../shared/shared-documents.ts";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { withLock, withLockAsync } from "../files/lock-file.ts";
import { parseDocument } from "../files/json-document.ts";

export const KEYS_FILE = "keys.json";
export const USAGE_FILE = "key-usage.json";
const LOCK_FILE = ".keys.lock";
const FORMAT = 1;

const Iso = v.pipe(v.string(), v.isoTimestamp());

const KeyRecordSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1)),
  account: v.pipe(v.string(), v.minLength(1)),
  name: v.pipe(v.string(), v.minLength(1)),
  prefix: v.pipe(v.string(), v.minLength(4)),
  hash: v.pipe(v.string(), v.startsWith("sha256:")),
  created: Iso,
  revoked: v.nullable(Iso),
  limits: v.record(v.string(), v.pipe(v.number(), v.integer(), v.minValue(0))),
});

const KeyFileSchema = v.object({ format: v.literal(FORMAT), keys: v.array(KeyRecordSchema) });
const UsageSchema = v.record(v.string(), Iso);

/** One key as stored: never the key itself. `limits` holds only per-scope overrides. */
export type KeyRecord = v.InferOutput<typeof KeyRecordSchema>;

/** Last-use times by key id. */
export type KeyUsage = Record<string, string>;

/** Parses the key file's text; throws a SyntaxError naming what is wrong. */
export function parseKeyFile(text: string): KeyRecord[] {
  return parseDocument(text, KeyFileSchema, KEYS_FILE).keys;
}

/** Reads every key record in `dir` (none when the file does not exist yet). */
export function readKeys(dir: string): KeyRecord[] {
  const path = join(dir, KEYS_FILE);
  return existsSync(path) ? parseKeyFile(readFileSync(path, "utf8")) : [];
}

/** The key file's text for `keys`. */
export function serialize(keys: readonly KeyRecord[]): string {
  return JSON.stringify({ format: FORMAT, keys }, null, 2) + "\n";
}

function changeKeys<T>(dir: string, change: (keys: KeyRecord[]) => T): T {
  const keys = readKeys(dir);
  const result = change(keys);
  writeFileAtomic(join(dir, KEYS_FILE), serialize(keys), { mode: 0o600 });
  return result;
}

/** Changes the key records under the store's lock; `change` returns its result. */
export function updateKeys<T>(dir: string, change: (keys: KeyRecord[]) => T): T {
  mkdirSync(dir, { recursive: true });
  return withLock(join(dir, LOCK_FILE), () => changeKeys(dir, change));
}

/**
 * `updateKeys` for the server: waiting for the lock does not block the event loop. With `shared`
 * documents (REDIS_URL) the change is made to Redis's copy, which every process follows.
 */
export function updateKeysAsync<T>(
  dir: string,
  change: (keys: KeyRecord[]) => T,
  shared?: SharedDocuments,
): Promise<T> {
  if (shared !== undefined) {
    return shared.update(KEYS_FILE, dir, (text) => {
      // The first change in Redis starts from DATA_DIR's keys, so none is lost.
      const keys = text === null ? readKeys(dir) : parseKeyFile(text);
      const result = change(keys);
      return { text: serialize(keys), result };
    });
  }
  mkdirSync(dir, { recursive: true });
  return withLockAsync(join(dir, LOCK_FILE), () => changeKeys(dir, change));
}

/** Reads the last-use times (an unreadable file counts as empty: it is only informative). */
export function readUsage(dir: string): KeyUsage {
  const path = join(dir, USAGE_FILE);
  if (!existsSync(path)) return {};
  try {
    const result = v.safeParse(UsageSchema, JSON.parse(readFileSync(path, "utf8")));
    return result.success ? result.output : {};
  } catch {
    return {};
  }
}

/** Merges last-use times into the usage file (or `shared`'s copy), keeping the later time of each key. */
export function recordUsage(dir: string, seen: Readonly<KeyUsage>, shared?: SharedDocuments): Promise<void> {
  // Each key keeps the later of the stored time and this process's.
  const later = (usage: KeyUsage): string => {
    for (const [id, time] of Object.entries(seen)) {
      if (usage[id] === undefined || usage[id] < time) usage[id] = time;
    }
    return JSON.stringify(usage, null, 2) + "\n";
  };
  if (shared !== undefined) {
    return shared.update(USAGE_FILE, dir, (text) => {
      const parsed = text === null ? undefined : v.safeParse(UsageSchema, JSON.parse(text));
      return { text: later(parsed?.success ? parsed.output : readUsage(dir)), result: undefined };
    });
  }
  return withLockAsync(join(dir, LOCK_FILE), () => {
    writeFileAtomic(join(dir, USAGE_FILE), later(readUsage(dir)), { mode: 0o600 });
  });
}
