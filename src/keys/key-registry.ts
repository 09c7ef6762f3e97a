/**
 * The server's view of the key store. Each check stats `keys.json`, so a key created or revoked
 * with the CLI takes effect on the next request, without a restart. Keys are found by their
 * non-secret prefix and then compared by hash in constant time. A key of a disabled account is
 * refused like a revoked one. Last use is kept in memory to the millisecond (the dashboard shows
 * it) and written to the usage file at most once a minute per key, after the response, never on
 * its path, without waiting on the CLI's lock.
 */
import { fileStamp } from "../files/file-stamp.ts";
import { type ChangeGate, createRecheck } from "../files/change-gate.ts";
import { timingSafeEqual } from "node:crypto";
import { hashKey, keyPrefix, looksLikeKey } from "./api-key.ts";
import { KEYS_FILE, type KeyRecord, readKeys, recordUsage } from "./key-file.ts";
import type { DocumentStore } from "../files/document-store.ts";
import { type KeptDocument, keptDocument } from "../files/kept-document.ts";

/** Who a request is, once its key is accepted. */
export interface Caller {
  readonly id: string;
  readonly account: string;
  readonly prefix: string;
  readonly limits: Readonly<Record<string, number>>;
}

/** The outcome of authentication: a caller, or why not. */
export type Authentication =
  | { readonly ok: true; readonly caller: Caller }
  | { readonly ok: false; readonly reason: "missing" | "invalid" | "revoked" | "disabled" };

export interface KeyRegistry {
  authenticate(presented: string | undefined): Authentication;
  /** When this process last accepted the key with that id (UTC ms), if it has. */
  lastUsed(id: string): number | undefined;
  /** Writes pending last-use times now (on shutdown). */
  flushUsage(): Promise<void>;
  /** Every key record, in the key file's order, as last read (the last good set if it is damaged). */
  records(): readonly KeyRecord[];
}

const USAGE_INTERVAL_MS = 60_000;
const VERIFIED_MAX = 10_000;

/** When a key was last used, and when that was last queued for the usage file (UTC ms). */
interface Usage {
  seen: number;
  written: number;
}

/** What an open registry keeps between requests. */
interface OpenRegistry extends KeptDocument {
  readonly isDisabled: (account: string) => boolean;
  readonly recheck: () => boolean;
  /** The key file's identity at the last read, and its records by prefix. */
  stamp: string;
  records: readonly KeyRecord[];
  byPrefix: Map<string, KeyRecord[]>;
  /** Each key's last use, seen and written; kept across rereads of the key file. */
  readonly usage: Map<string, Usage>;
  /** Keys verified since the key file was last read (a bounded memo of valid keys only). */
  readonly verified: Map<string, KeyRecord>;
  /** Last-use times waiting to be written, by key id. */
  readonly pending: Map<string, string>;
  flushScheduled: boolean;
}

/** Opens the key store in `dir`; `onError` hears of unreadable key files and failed usage writes. */
export function createKeyRegistry(options: {
  dir: string;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** Where the last-use times are added: DATA_DIR's file (the default), or with REDIS_URL Redis's copy. */
  documents?: DocumentStore;
  /** Whether an account is disabled: its keys are refused. */
  isDisabled?: (account: string) => boolean;
  /** The data directory's change gate: `keys.json` is restatted only when it may have changed. */
  gate?: ChangeGate;
}): KeyRegistry {
  const open: OpenRegistry = {
    ...keptDocument(options, KEYS_FILE),
    isDisabled: options.isDisabled ?? (() => false),
    recheck: createRecheck(options.gate),
    stamp: "",
    records: [],
    byPrefix: new Map(),
    usage: new Map(),
    verified: new Map(),
    pending: new Map(),
    flushScheduled: false,
  };
  reload(open);
  return {
    authenticate: (presented) => authenticate(open, presented),
    flushUsage: () => flushUsage(open),
    records() {
      if (open.recheck()) reload(open);
      return open.records;
    },
    lastUsed: (id) => {
      const seen = open.usage.get(id)?.seen;
      return seen === undefined || seen === -Infinity ? undefined : seen;
    },
  };
}

function reload(open: OpenRegistry): void {
  const next = fileStamp(open.path);
  if (next === open.stamp) return;
  open.stamp = next;
  open.verified.clear();
  try {
    const index = new Map<string, KeyRecord[]>();
    const records = readKeys(open.dir);
    for (const record of records) {
      const list = index.get(record.prefix) ?? [];
      list.push(record);
      index.set(record.prefix, list);
    }
    open.byPrefix = index;
    open.records = records;
  } catch (error) {
    // Keep serving the last good set: only a hand edit can break the file the CLI writes.
    open.onError(error);
  }
}

/** How long after a failed write of last-use times it is tried again. */
export const USAGE_RETRY_MS = 30_000;

// Writes the pending last-use times; on failure they wait again (a later use wins) and are retried
// after USAGE_RETRY_MS, and the error is both reported and thrown (a stop must know).
async function flushUsage(open: OpenRegistry): Promise<void> {
  open.flushScheduled = false;
  if (open.pending.size === 0) return;
  const batch = Object.fromEntries(open.pending);
  open.pending.clear();
  try {
    await recordUsage(open.documents, batch);
  } catch (error) {
    open.onError(error);
    for (const [id, at] of Object.entries(batch)) if (!open.pending.has(id)) open.pending.set(id, at);
    if (!open.flushScheduled) {
      open.flushScheduled = true;
      setTimeout(() => void flushUsage(open).catch(() => {}), USAGE_RETRY_MS).unref();
    }
    throw error;
  }
}

function noteUse(open: OpenRegistry, id: string): void {
  let use = open.usage.get(id);
  if (use === undefined) {
    use = { seen: -Infinity, written: -Infinity };
    open.usage.set(id, use);
  }
  const t = open.now();
  use.seen = t;
  if (t - use.written < USAGE_INTERVAL_MS) return;
  use.written = t;
  open.pending.set(id, new Date(t).toISOString());
  if (!open.flushScheduled) {
    open.flushScheduled = true;
    setImmediate(() => void flushUsage(open).catch(() => {})); // reported, and retried
  }
}

function accept(open: OpenRegistry, record: KeyRecord): Authentication {
  // Both answer 401 "Invalid API key." as an unknown key does; the reason is for the metrics.
  if (record.revoked !== null) return { ok: false, reason: "revoked" };
  if (open.isDisabled(record.account)) return { ok: false, reason: "disabled" };
  noteUse(open, record.id);
  const caller = { id: record.id, account: record.account, prefix: record.prefix, limits: record.limits };
  return { ok: true, caller };
}

function authenticate(open: OpenRegistry, presented: string | undefined): Authentication {
  const value = presented?.trim();
  if (value === undefined || value === "") return { ok: false, reason: "missing" };
  if (open.recheck()) reload(open);
  // A key already verified since the key file was last read skips the hash (the memo is dropped
  // whenever the file is reread, so a revocation is never missed).
  const known = open.verified.get(value);
  if (known !== undefined) return accept(open, known);
  if (!looksLikeKey(value)) return { ok: false, reason: "invalid" };
  const digest = Buffer.from(hashKey(value));
  for (const record of open.byPrefix.get(keyPrefix(value)) ?? []) {
    const stored = Buffer.from(record.hash);
    if (stored.length === digest.length && timingSafeEqual(stored, digest)) {
      if (open.verified.size >= VERIFIED_MAX) open.verified.clear();
      open.verified.set(value, record);
      return accept(open, record);
    }
  }
  return { ok: false, reason: "invalid" };
}
