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
import { join } from "node:path";
import { hashKey, keyPrefix, looksLikeKey } from "./api-key.ts";
import { KEYS_FILE, type KeyRecord, readKeys, recordUsage } from "./key-file.ts";
import type { SharedDocuments } from "../shared/shared-documents.ts";

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
}

const USAGE_INTERVAL_MS = 60_000;
const VERIFIED_MAX = 10_000;

/** When a key was last used, and when that was last queued for the usage file (UTC ms). */
interface Usage {
  seen: number;
  written: number;
}

interface Acceptance {
  readonly authentication: Authentication;
  readonly usage: Usage;
}

/** Opens the key store in `dir`; `onError` hears of unreadable key files and failed usage writes. */
// eslint-disable-next-line max-lines-per-function -- a factory: its state is the closure, and each function in it is under 60 lines.
export function createKeyRegistry(options: {
  dir: string;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** With REDIS_URL: the shared documents the last-use times are added into. */
  shared?: SharedDocuments;
  /** Whether an account is disabled: its keys are refused. */
  isDisabled?: (account: string) => boolean;
  /** The data directory's change gate: `keys.json` is restatted only when it may have changed. */
  gate?: ChangeGate;
}): KeyRegistry {
  const { dir } = options;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ((error) => console.error(error));
  const path = join(dir, KEYS_FILE);
  let stamp = "";
  let byPrefix = new Map<string, KeyRecord[]>();
  const isDisabled = options.isDisabled ?? (() => false);
  const recheck = createRecheck(options.gate);
  // Each key's last use, seen and written; kept across rereads of the key file.
  const usage = new Map<string, Usage>();
  const verified = new Map<string, KeyRecord>();
  // The answer for each accepted record and its usage, made once per read of the key file, so an
  // accepted request updates two numbers in place rather than maps.
  const acceptances = new Map<KeyRecord, Acceptance>();
  const pending = new Map<string, string>();
  let flushScheduled = false;

  function reload(): void {
    const next = fileStamp(path);
    if (next === stamp) return;
    stamp = next;
    verified.clear();
    acceptances.clear();
    try {
      const index = new Map<string, KeyRecord[]>();
      for (const record of readKeys(dir)) {
        const list = index.get(record.prefix) ?? [];
        list.push(record);
        index.set(record.prefix, list);
      }
      byPrefix = index;
    } catch (error) {
      // Keep serving the last good set: only a hand edit can break the file the CLI writes.
      onError(error);
    }
  }

  async function flushUsage(): Promise<void> {
    flushScheduled = false;
    if (pending.size === 0) return;
    const batch = Object.fromEntries(pending);
    pending.clear();
    try {
      await recordUsage(dir, batch, options.shared);
    } catch (error) {
      onError(error);
    }
  }

  function noteUse(id: string, use: Usage): void {
    const t = now();
    use.seen = t;
    if (t - use.written < USAGE_INTERVAL_MS) return;
    use.written = t;
    pending.set(id, new Date(t).toISOString());
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(() => void flushUsage());
    }
  }

  function accept(record: KeyRecord): Authentication {
    // Both answer 401 "Invalid API key." as an unknown key does; the reason is for the metrics.
    if (record.revoked !== null) return { ok: false, reason: "revoked" };
    if (isDisabled(record.account)) return { ok: false, reason: "disabled" };
    let accepted = acceptances.get(record);
    if (accepted === undefined) {
      const caller = { id: record.id, account: record.account, prefix: record.prefix, limits: record.limits };
      let use = usage.get(record.id);
      if (use === undefined) {
        use = { seen: -Infinity, written: -Infinity };
        usage.set(record.id, use);
      }
      accepted = { authentication: { ok: true, caller }, usage: use };
      acceptances.set(record, accepted);
    }
    noteUse(record.id, accepted.usage);
    return accepted.authentication;
  }

  function authenticate(presented: string | undefined): Authentication {
    const value = presented?.trim();
    if (value === undefined || value === "") return { ok: false, reason: "missing" };
    if (recheck()) reload();
    // A key already verified since the key file was last read skips the hash (a bounded memo of
    // valid keys only, dropped whenever the file is reread, so a revocation is never missed).
    const known = verified.get(value);
    if (known !== undefined) return accept(known);
    if (!looksLikeKey(value)) return { ok: false, reason: "invalid" };
    const digest = Buffer.from(hashKey(value));
    for (const record of byPrefix.get(keyPrefix(value)) ?? []) {
      const stored = Buffer.from(record.hash);
      if (stored.length === digest.length && timingSafeEqual(stored, digest)) {
        if (verified.size >= VERIFIED_MAX) verified.clear();
        verified.set(value, record);
        return accept(record);
      }
    }
    return { ok: false, reason: "invalid" };
  }

  reload();
  return {
    authenticate,
    flushUsage,
    lastUsed: (id) => {
      const seen = usage.get(id)?.seen;
      return seen === undefined || seen === -Infinity ? undefined : seen;
    },
  };
}
