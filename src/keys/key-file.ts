/**
 * The key store, `DATA_DIR/keys.json` (mode 0600): one record per key with only its hash. The
 * CLI changes it under a lock with read-modify-write and an atomic replace, so concurrent
 * commands never lose a key; a running server only reads it. Key use times live beside it in
 * `key-usage.json`, written by the server, so that reads stay cheap and the operator's file is
 * never rewritten behind their back.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { withLock } from "../files/lock-file.ts";
import { type DocumentStore, type KeptFile, localText } from "../files/document-store.ts";
import { parseDocument } from "../files/json-document.ts";

export const KEYS_FILE = "keys.json";
export const USAGE_FILE = "key-usage.json";
const LOCK_FILE = ".keys.lock";
/** The key file and the last-use file, as kept documents: both under the keys' lock. */
export const KEYS_DOCUMENT: KeptFile = { name: KEYS_FILE, lock: LOCK_FILE };
export const USAGE_DOCUMENT: KeptFile = { name: USAGE_FILE, lock: LOCK_FILE };
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
 * `updateKeys` for the server, through its document store: waiting for the lock does not block
 * the event loop, and with Redis the change is made to the copy every process follows.
 */
export function updateKeysAsync<T>(documents: DocumentStore, change: (keys: KeyRecord[]) => T): Promise<T> {
  return documents.update(KEYS_DOCUMENT, (text) => {
    const keys = text === null ? [] : parseKeyFile(text);
    const result = change(keys);
    return { text: serialize(keys), result };
  });
}

// Last-use times from the usage file's text: unreadable counts as empty, as they are only informative.
function parseUsage(text: string | null): KeyUsage {
  if (text === null) return {};
  try {
    const result = v.safeParse(UsageSchema, JSON.parse(text));
    return result.success ? result.output : {};
  } catch {
    return {};
  }
}

/** Reads the last-use times (an unreadable file counts as empty). */
export function readUsage(dir: string): KeyUsage {
  return parseUsage(localText(dir, USAGE_FILE));
}

/** Merges last-use times into the usage document, keeping the later time of each key. */
export function recordUsage(documents: DocumentStore, seen: Readonly<KeyUsage>): Promise<void> {
  return documents.update(USAGE_DOCUMENT, (text) => {
    const usage = parseUsage(text);
    for (const [id, time] of Object.entries(seen)) {
      if (usage[id] === undefined || usage[id] < time) usage[id] = time;
    }
    return { text: JSON.stringify(usage, null, 2) + "\n", result: undefined };
  });
}
