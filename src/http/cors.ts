/**
 * CORS for browser notebooks (Observable, JupyterLite): off unless the operator lists origins in
 * `CORS_ORIGINS`. A listed origin may send `X-API-KEY` and conditional headers, and read the
 * limit, validator and request-id headers. Preflights are answered before authentication, as
 * browsers send them without the key.
 */
import type { IncomingMessage } from "node:http";
import type { Reply } from "./reply.ts";

/** Headers a script from an allowed origin may send. */
const ALLOWED_HEADERS = "X-API-KEY, If-None-Match, If-Modified-Since, X-Request-Id, Accept";
/** Response headers it may read. */
const EXPOSED_HEADERS =
  "RateLimit, RateLimit-Policy, Retry-After, ETag, Last-Modified, X-Request-Id, Content-Disposition";

/** Parses `CORS_ORIGINS` (comma-separated origins such as `https://observablehq.com`); throws a TypeError. */
export function parseCorsOrigins(value: string | undefined): ReadonlySet<string> {
  const origins = (value ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new TypeError(`"${origin}" is not an origin such as https://example.org`);
    }
    if (parsed.origin !== origin)
      throw new TypeError(`"${origin}" is not an origin such as ${parsed.origin}`);
  }
  return new Set(origins);
}

/**
 * Adds CORS headers for an allowed origin; answers a preflight itself (returns true) so the
 * pipeline stops there.
 */
export function applyCors(req: IncomingMessage, reply: Reply, allowed: ReadonlySet<string>): boolean {
  if (allowed.size === 0) return false;
  const origin = req.headers.origin;
  reply.header("Vary", "Origin");
  if (origin === undefined || !allowed.has(origin)) return false;
  reply.header("Access-Control-Allow-Origin", origin);
  if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
    reply
      .writeHead(204, {
        "Access-Control-Allow-Methods": "GET, HEAD",
        "Access-Control-Allow-Headers": ALLOWED_HEADERS,
        "Access-Control-Max-Age": "600",
        "Content-Length": 0,
      })
      .end();
    return true;
  }
  reply.header("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  return false;
}
