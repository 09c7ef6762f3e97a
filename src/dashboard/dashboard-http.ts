/**
 * What every dashboard response has in common: the security headers, HTML pages, redirects, and
 * the viewer's session read from its cookie. The headers are those docs/dashboard.md
 * documents: a CSP with no inline script and no framing, `nosniff`, `same-origin` referrers, and
 * `no-store`, since every page is private and some show a secret.
 */
import type { IncomingMessage } from "node:http";
import type { Reply } from "../http/reply.ts";
import type { AccountRecord } from "../accounts/account-file.ts";
import type { AccountRegistry } from "../accounts/account-registry.ts";
import type { Session, SessionStore } from "../accounts/session-store.ts";
import { readCookie, SESSION_COOKIE } from "./cookies.ts";
import { csrfToken } from "./csrf.ts";
import type { Viewer } from "./layout.ts";

/** The Content-Security-Policy of every dashboard response. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers every dashboard response carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/** Sends an HTML page with the security headers and `Cache-Control: no-store`. */
export function sendPage(
  reply: Reply,
  page: string,
  options: { status?: number; headers?: Record<string, string | string[]> } = {},
): void {
  const body = Buffer.from(page);
  reply
    .writeHead(options.status ?? 200, {
      ...SECURITY_HEADERS,
      "Cache-Control": "no-store",
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": body.length,
      ...options.headers,
    })
    .end(body);
}

/** A 303 to `location` (a path of ours), after a form or when a page needs a sign-in first. */
export function redirect(
  reply: Reply,
  location: string,
  headers: Record<string, string | string[]> = {},
): void {
  reply
    .writeHead(303, {
      ...SECURITY_HEADERS,
      "Cache-Control": "no-store",
      Location: location,
      "Content-Length": 0,
      ...headers,
    })
    .end();
}

/** A signed-in request: its session, the session's id (from the cookie), the account and the viewer. */
export interface SignedIn {
  readonly id: string;
  readonly session: Session;
  readonly account: AccountRecord;
  readonly viewer: Viewer;
}

/**
 * The request's session when it is live and its account may use it: the account exists, is not
 * disabled, and has not ended its sessions since (a password change, a reset, a disable).
 */
export function signedIn(
  req: IncomingMessage,
  sessions: SessionStore,
  accounts: AccountRegistry,
): SignedIn | undefined {
  const id = readCookie(req, SESSION_COOKIE);
  const session = sessions.find(id);
  if (session === undefined) return undefined;
  const account = accounts.get(session.account);
  if (account === undefined || account.disabled !== null) return undefined;
  if (session.created < Date.parse(account.sessionsValidAfter)) return undefined;
  return {
    id: id!,
    session,
    account,
    viewer: { account: account.name, admin: account.admin, csrf: csrfToken(id!) },
  };
}

/**
 * Whether a form post comes from our own pages by the browser's word: `Sec-Fetch-Site`, where
 * sent, must not be `cross-site` or `same-site`. Defence in depth beside the token and SameSite.
 */
export function sameOriginPost(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  return site === undefined || site === "same-origin" || site === "none";
}

/**
 * The client's address, for the sign-in throttle. Behind `trustedProxies` reverse proxies, each of
 * which appends the address it saw to `X-Forwarded-For`, it is the entry that many places from
 * the end (what the outermost trusted proxy saw); entries further left are the client's word and
 * never trusted. With no trusted proxy, it is the connection's address.
 */
export function clientAddress(req: IncomingMessage, trustedProxies = 0): string {
  const direct = req.socket.remoteAddress ?? "unknown";
  if (trustedProxies === 0) return direct;
  const header = req.headers["x-forwarded-for"];
  const hops = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  return hops[hops.length - trustedProxies] ?? direct;
}
