/**
 * API keys: `gds_`, 43 random base62 characters (256 bits), and a 6-character base62 CRC-32 of
 * everything before it, as GitHub's tokens are built. The checksum lets the server refuse a
 * mistyped key without looking it up, and lets secret scanners recognise a leaked one with few
 * false alarms. Keys made before the checksum (`gds_` and 43 base64url characters) still work.
 * Only a SHA-256 digest is kept; for a key of 256 random bits a fast hash is enough, since
 * guessing is the only attack. The README's "API keys and limits" documents the format.
 */
import { createHash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

export const KEY_PREFIX = "gds_";
/** How many characters of a key are shown to identify it (`gds_` and 8 more). */
export const PREFIX_LENGTH = 12;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
/** The shape of a key with a checksum. */
export const KEY_SHAPE = /^gds_[0-9A-Za-z]{49}$/;
// Keys made before the checksum was added.
const LEGACY_SHAPE = /^gds_[A-Za-z0-9_-]{43}$/;

function base62(n: number, width: number): string {
  let out = "";
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body) >>> 0, CHECKSUM_LENGTH);
}

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 × 62: rejecting the rest keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new random key. */
export function generateKey(): string {
  const body = KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

/** The digest a key is stored as, `sha256:<hex>`. */
export function hashKey(key: string): string {
  return "sha256:" + createHash("sha256").update(key).digest("hex");
}

/** The part of a key shown in listings and logs. */
export function keyPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}

/** Whether a presented value can be one of our keys: the checksummed shape with a right checksum, or a legacy key. */
export function looksLikeKey(value: string): boolean {
  if (KEY_SHAPE.test(value)) {
    const body = value.slice(0, -CHECKSUM_LENGTH);
    return checksum(body) === value.slice(-CHECKSUM_LENGTH);
  }
  return LEGACY_SHAPE.test(value);
}

/** A short random identifier for a key record. */
export function generateKeyId(): string {
  return "key_" + randomBytes(6).toString("hex");
}
