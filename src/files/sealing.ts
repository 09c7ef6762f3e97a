/**
 * Secrets sealed at rest with AES-256-GCM, in one format (`v1.<iv>.<tag>.<ciphertext>`): the
 * webhooks' signing secrets, under the sealing keys each VM keeps itself (a file of mode 0600, or
 * `WEBHOOK_SEAL_KEY`: a secret must be readable to sign with, so it cannot be hashed as API keys
 * are), and the dashboard's show-once secrets while they wait in Redis, under a key derived from
 * the session.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { secretFileText } from "./secret-file.ts";

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

/**
 * A key's public name: the first 16 hex digits of an HMAC under it. It tells two keys apart (what
 * Redis keeps, to find a VM whose key differs) and gives nothing of the key.
 */
export function keyId(key: Buffer): string {
  return createHmac("sha256", key).update("gds sealing key id").digest("hex").slice(0, 16);
}

/**
 * The sealing keys one VM holds: the first seals, and every one opens. More than one is held only
 * through a rotation (docs/webhooks.md, "The sealing key"), the old keys after the new.
 */
export class SealingKeys {
  readonly #keys: readonly Buffer[];

  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new RangeError("No sealing key");
    this.#keys = keys;
  }

  /** The key that seals, by its id. */
  get id(): string {
    return keyId(this.#keys[0]!);
  }

  /** Every key held, by its id, the sealing one first. */
  get ids(): string[] {
    return this.#keys.map(keyId);
  }

  seal(text: string): string {
    return seal(this.#keys[0]!, text);
  }

  /** The text of a value sealed under any key held; throws when none opens it. */
  unseal(sealed: string): string {
    for (const key of this.#keys) {
      try {
        return unseal(key, sealed);
      } catch {
        // another key's, perhaps
      }
    }
    throw new RangeError(
      `A secret is sealed under none of the sealing keys held here (${this.ids.join(", ")})`,
    );
  }
}

/** The keys of a text (base64 keys of 32 bytes, one per line or comma-separated); throws naming `where`. */
export function parseSealingKeys(text: string, where: string): SealingKeys {
  const keys = text
    .split(/[\s,]+/)
    .filter((part) => part !== "")
    .map((part, i) => {
      const key = Buffer.from(part, "base64");
      if (key.length !== 32 || key.toString("base64") !== part)
        throw new RangeError(`key ${i + 1} of ${where} is not 32 bytes in base64`);
      return key;
    });
  if (keys.length === 0) throw new RangeError(`${where} holds no sealing key`);
  return new SealingKeys(keys);
}

/** The sealing keys in the file at `path`, made with one new key when missing. */
export function sealingKeysAt(path: string): SealingKeys {
  return parseSealingKeys(secretFileText(path), `${path} (restore it from a backup)`);
}
