/**
 * Anti-forgery tokens. A signed-in form's token is an HMAC of the fixed label "csrf" keyed by the
 * session id: bound to that session, computable by no one who lacks the cookie, and needing no
 * storage (the server keeps only the id's hash, from which it cannot be computed). The sign-in
 * form, before any session, uses a signed double-submit cookie (OWASP): the same token in the form
 * and in a cookie, made of when it was issued, a nonce and an HMAC of both keyed by a secret the
 * server keeps, so no one can forge a pair, and a pair expires an hour after it was shown.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** The token for forms shown in the session with this id. */
export function csrfToken(sessionId: string): string {
  return createHmac("sha256", sessionId).update("csrf").digest("base64url");
}

/** Whether two tokens are equal, compared in constant time; an absent one never matches. */
export function tokensMatch(expected: string | undefined, presented: string | undefined): boolean {
  if (expected === undefined || presented === undefined || expected === "") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** How long a sign-in form's token is accepted. */
export const SIGN_IN_TOKEN_MS = 60 * 60_000;

function signInMac(secret: Uint8Array, body: string): string {
  return createHmac("sha256", secret).update(`sign-in.${body}`).digest("base64url");
}

/** A fresh sign-in token, issued at `now`. */
export function issueSignInToken(secret: Uint8Array, now: number): string {
  const body = `${now.toString(36)}.${randomBytes(16).toString("base64url")}`;
  return `${body}.${signInMac(secret, body)}`;
}

/** Whether `token` was issued with `secret` within the last hour (and not in the future). */
export function signInTokenValid(secret: Uint8Array, token: string | undefined, now: number): boolean {
  const m = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(token ?? "");
  if (m === null || !tokensMatch(signInMac(secret, `${m[1]}.${m[2]}`), m[3])) return false;
  const age = now - parseInt(m[1]!, 36);
  return age >= -60_000 && age <= SIGN_IN_TOKEN_MS;
}
