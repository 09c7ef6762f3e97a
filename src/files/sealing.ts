/**
 * Secrets sealed at rest with AES-256-GCM, in one format (`v1.<iv>.<tag>.<ciphertext>`): the
 * webhooks' signing secrets, under a key kept in a file of mode 0600 (a secret must be readable to
 * sign with, so it cannot be hashed as API keys are), and the dashboard's show-once secrets while
 * they wait in Redis, under a key derived from the session.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { secretFileText } from "./secret-file.ts";

/** The sealing key at `path`, made when missing (two processes at once: the first link wins). */
export function sealingKey(path: string): Buffer {
  const key = Buffer.from(secretFileText(path).trim(), "base64");
  if (key.length !== 32) throw new RangeError(`${path} is not a 32-byte key; restore it from a backup`);
  return key;
}

/** `text` sealed: `v1.<iv>.<tag>.<ciphertext>`, base64url. */
export function seal(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/** The text of a sealed value; throws when it was not sealed under `key` or was changed. */
export function unseal(key: Buffer, sealed: string): string {
  const [version, iv, tag, data] = sealed.split(".");
  if (version !== "v1" || iv === undefined || tag === undefined || data === undefined) {
    throw new RangeError("Not a sealed secret");
  }
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
}
