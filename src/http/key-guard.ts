/**
 * Authentication and throttling for every route with a scope, in DRF's order: a missing or bad
 * key is a 401 (never counted), then the key's window for the route's scope is checked (a 429 is
 * not counted either). Every authenticated response carries the IETF RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "<scope>";q=<limit>;w=60` and
 * `RateLimit: "<scope>";r=<remaining>;t=<seconds>`. A call made in-process for a caller already
 * known (the explorer's account, an MCP key) is counted and limited the same way.
 */
import type { IncomingMessage } from "node:http";
import type { Caller, KeyRegistry } from "../keys/key-registry.ts";
import type { Limiter, LimitResult } from "../limits/limiter.ts";
import type { RequestCounter } from "../usage/request-counts.ts";
import { WINDOW_MS } from "../limits/scopes.ts";
import type { Guard } from "./app.ts";
import { HttpError } from "./http-error.ts";
import type { Reply } from "./reply.ts";
import type { RequestContext, RequestHead, Route } from "./router.ts";

const CHALLENGE = { "WWW-Authenticate": "X-API-KEY" };
const BEARER_CHALLENGE = { "WWW-Authenticate": "Bearer" };
const WINDOW_SECONDS = WINDOW_MS / 1000;

/** The 429 detail, worded as DRF words it. */
export function throttledDetail(seconds: number): string {
  return `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? "" : "s"}.`;
}

/** The key a request presents: `X-API-KEY`, else (with `bearer`) an `Authorization: Bearer` token. */
export function presentedKey(req: IncomingMessage, bearer = false): string | undefined {
  const header = req.headers["x-api-key"];
  if (header !== undefined) return Array.isArray(header) ? header.join(",") : header;
  if (!bearer) return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
}

/** What the guard tells the metrics: each refused key (why) and each throttled request (its scope). */
export interface GuardObserver {
  refused(reason: "missing" | "invalid" | "revoked" | "disabled"): void;
  throttled(scope: string): void;
}

/** A guard checking keys in `registry` and limits in `limiter`; `defaults` are per scope. */
export function createKeyGuard(options: {
  registry: KeyRegistry;
  limiter: Limiter;
  defaults: Readonly<Record<string, number>>;
  /** Where allowed and throttled requests are counted, per key and scope, for the dashboard. */
  counter?: RequestCounter;
  observe?: GuardObserver;
}): Guard {
  const { registry, limiter, defaults, counter, observe } = options;

  // Checks and counts the caller's request against its limit in the route's scope.
  async function limit(
    caller: Caller,
    req: RequestHead,
    reply: Reply,
    route: Route,
    ctx: RequestContext,
  ): Promise<HttpError | undefined> {
    const limitFor = (scope: string): number | undefined => caller.limits[scope] ?? defaults[scope];
    ctx.keyPrefix = caller.prefix;
    ctx.limitFor = limitFor;
    ctx.caller = caller;
    const scope = route.scope!;
    const most = limitFor(scope);
    if (most === undefined) throw new TypeError(`No limit is configured for scope "${scope}"`);
    // A request costing more than the whole limit takes the whole window, once it is empty.
    const cost = Math.min(most, route.cost?.(req, ctx) ?? 1);
    const result = await limiter.check(caller.id, scope, most, cost);
    return apply(reply, caller, { scope, limit: most }, result, { counter, observe });
  }

  return {
    limit,
    async check(req, reply, route, ctx) {
      const bearer = route.auth === "key-or-bearer";
      const auth = registry.authenticate(presentedKey(req, bearer));
      if (!auth.ok) {
        observe?.refused(auth.reason);
        const detail =
          auth.reason === "missing" ? "Authentication credentials were not provided." : "Invalid API key.";
        return new HttpError(401, detail, { headers: bearer ? BEARER_CHALLENGE : CHALLENGE });
      }
      return limit(auth.caller, req, reply, route, ctx);
    },
  };
}

// Counts the request, sets the RateLimit fields, and answers 429 when the window is full.
function apply(
  reply: Reply,
  caller: Caller,
  policy: { scope: string; limit: number },
  result: LimitResult,
  to: { counter?: RequestCounter; observe?: GuardObserver },
): HttpError | undefined {
  const { scope } = policy;
  to.counter?.count(caller.id, scope, result.success);
  reply.header("RateLimit-Policy", `"${scope}";q=${policy.limit};w=${WINDOW_SECONDS}`);
  reply.header("RateLimit", `"${scope}";r=${result.remaining};t=${result.reset}`);
  if (!result.success) {
    to.observe?.throttled(scope);
    return new HttpError(429, throttledDetail(result.reset), {
      headers: { "Retry-After": String(result.reset) },
    });
  }
  return undefined;
}
