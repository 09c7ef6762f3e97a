/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): a secret is `whsec_` and base64
 * bytes; a message is signed as `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`
 * under those bytes; several signatures (a secret being rotated) are sent space-separated.
 */
import { createHmac, randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

/** A new signing secret: 32 random bytes. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/** A new message id, kept by every attempt of one delivery. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString("hex")}`;
}

/** The `webhook-signature` value of a message under each of `secrets`. */
export function signatures(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
      return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
    })
    .join(" ");
}
