/**
 * Anti-forgery tokens. A signed-in form's token is an HMAC of the fixed label "csrf" keyed by the
 * session id: bound to that session, computable by no one who lacks the cookie, and needing no
 * storage (the server keeps only the id's hash, from which it cannot be computed). The sign-in
 * form, before any session, uses a double-submit cookie instead.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

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
