/**
 * API keys: 32 random bytes behind a recognizable `gds_` prefix. Only a SHA-256 digest is kept;
 * for a key of 256 random bits a fast hash is enough, since guessing is the only attack.
 */
import { createHash, randomBytes } from "node:crypto";

export const KEY_PREFIX = "gds_";
/** How many characters of a key are shown to identify it (`gds_` and 8 more). */
export const PREFIX_LENGTH = 12;
const KEY_SHAPE = /^gds_[A-Za-z0-9_-]{43}$/;

/** A new random key. */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** The digest a key is stored as, `sha256:<hex>`. */
export function hashKey(key: string): string {
  return "sha256:" + createHash("sha256").update(key).digest("hex");
}

/** The part of a key shown in listings and logs. */
export function keyPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}

/** Whether a presented value has the shape of one of our keys. */
export function looksLikeKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

/** A short random identifier for a key record. */
export function generateKeyId(): string {
  return "key_" + randomBytes(6).toString("hex");
}
