/** What an operator does with keys: create, find, revoke, change limits, list. */
import { generateKey, generateKeyId, hashKey, keyPrefix } from "./api-key.ts";
import { type KeyRecord, readKeys, readUsage, updateKeys } from "./key-file.ts";
import type { Scope } from "../limits/scopes.ts";

/** A key reference an operator typed matched no key, or more than one. */
export class KeyNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KeyNotFoundError";
  }
}

/** A new key and its record, not yet stored; the full key is returned here and never again. */
export function newKey(options: {
  name: string;
  account: string;
  limits?: Partial<Record<Scope, number>>;
  now?: Date;
}): { key: string; record: KeyRecord } {
  const key = generateKey();
  const record: KeyRecord = {
    id: generateKeyId(),
    account: options.account,
    name: options.name,
    prefix: keyPrefix(key),
    hash: hashKey(key),
    created: (options.now ?? new Date()).toISOString(),
    revoked: null,
    limits: { ...options.limits },
  };
  return { key, record };
}

/** Creates and stores a key; the full key is returned here and never again. */
export function createKey(
  dir: string,
  options: { name: string; account: string; limits?: Partial<Record<Scope, number>>; now?: Date },
): { key: string; record: KeyRecord } {
  const created = newKey(options);
  updateKeys(dir, (keys) => keys.push(created.record));
  return created;
}

function find(keys: KeyRecord[], ref: string): KeyRecord {
  const matches = keys.filter(
    (k) => k.id === ref || k.prefix === ref || (ref.length >= 6 && k.prefix.startsWith(ref)),
  );
  if (matches.length === 0) throw new KeyNotFoundError(`No key has the id or prefix "${ref}"`);
  if (matches.length > 1) {
    throw new KeyNotFoundError(
      `"${ref}" matches ${matches.length} keys (${matches.map((k) => k.id).join(", ")}); use the id`,
    );
  }
  return matches[0]!;
}

/** Revokes a key by id or prefix; returns it and whether it was already revoked. */
export function revokeKey(
  dir: string,
  ref: string,
  now = new Date(),
): { record: KeyRecord; already: boolean } {
  return updateKeys(dir, (keys) => {
    const record = find(keys, ref);
    const already = record.revoked !== null;
    if (!already) record.revoked = now.toISOString();
    return { record: { ...record }, already };
  });
}

/** Sets (a number) or removes (null) per-scope limit overrides of a key record, in place. */
export function applyLimits(record: KeyRecord, limits: Partial<Record<Scope, number | null>>): KeyRecord {
  for (const [scope, n] of Object.entries(limits)) {
    if (n === null) delete record.limits[scope];
    else record.limits[scope] = n!;
  }
  return { ...record, limits: { ...record.limits } };
}

/** Sets (a number) or removes (null) per-scope limit overrides of a key. */
export function setKeyLimits(
  dir: string,
  ref: string,
  limits: Partial<Record<Scope, number | null>>,
): KeyRecord {
  return updateKeys(dir, (keys) => applyLimits(find(keys, ref), limits));
}

/** Every key with its last use, optionally for one account. */
export function listKeys(dir: string, account?: string): (KeyRecord & { lastUsed: string | null })[] {
  const usage = readUsage(dir);
  return readKeys(dir)
    .filter((k) => account === undefined || k.account === account)
    .map((k) => ({ ...k, lastUsed: usage[k.id] ?? null }));
}
