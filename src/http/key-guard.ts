/**
 * Authentication and throttling for every route with a scope, in DRF's order: a missing or bad
 * key is a 401 (never counted), then the key's window for the route's scope is checked (a 429 is
 * not counted either). Every authenticated response carries the IETF RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "<scope>";q=<limit>;w=60` and
 * `RateLimit: "<scope>";r=<remaining>;t=<seconds>`.
 */
import type { IncomingMessage } from "node:http";
import type { Caller, KeyRegistry } from "../keys/key-registry.ts";
import type { Limiter, LimitResult } from "../limits/limiter.ts";
import type { RequestCounter } from "../usage/request-counts.ts";
import { WINDOW_MS } from "../limits/scopes.ts";
import type { Guard } from "./app.ts";
import { HttpError } from "./http-error.ts";
import type { Reply } from "./reply.ts";

const CHALLENGE = { "WWW-Authenticate": "X-API-KEY" };
const BEARER_CHALLENGE = { "WWW-Authenticate": "Bearer" };
const SIGN_IN_FIRST = "Sign in to the dashboard first: the explorer's data needs a session.";
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

/** A guard checking keys in `registry` and limits in `limiter`; `defaults` are per scope. */
export function createKeyGuard(options: {
  registry: KeyRegistry;
  limiter: Limiter;
  defaults: Readonly<Record<string, number>>;
  /** Where allowed and throttled requests are counted, per key and scope, for the dashboard. */
  counter?: RequestCounter;
  /**
   * The caller a dashboard session names, for routes whose `auth` is "session": the account, with
   * its id in the limiter and the default limits; undefined without a live session.
   */
  sessionCaller?: (req: IncomingMessage) => Caller | undefined;
  /** Hears of each refused key (why) and each throttled request (its scope), for the metrics. */
  observe?: {
    refused(reason: "missing" | "invalid" | "revoked" | "disabled"): void;
    throttled(scope: string): void;
  };
}): Guard {
  const { registry, limiter, defaults, counter, observe } = options;
  const onThrottled = observe === undefined ? undefined : (scope: string) => observe.throttled(scope);
  // Checks and counts the caller's request against its limit in the route's scope.
  const limited: (caller: Caller, ...rest: Parameters<Guard>) => ReturnType<Guard> = (
    caller,
    req,
    reply,
    route,
    ctx,
  ) => {
    const limitFor = (scope: string): number | undefined => caller.limits[scope] ?? defaults[scope];
    ctx.keyPrefix = caller.prefix;
    ctx.limitFor = limitFor;
    const scope = route.scope!;
    const limit = limitFor(scope);
    if (limit === undefined) throw new TypeError(`No limit is configured for scope "${scope}"`);
    const policy = `"${scope}";q=${limit};w=${WINDOW_SECONDS}`;
    // A request costing more than the whole limit takes the whole window, once it is empty.
    const cost = Math.min(limit, route.cost?.(req, ctx) ?? 1);
    // This process's limiter answers at once; a shared one (Redis) answers later.
    const result = limiter.check(caller.id, scope, limit, cost);
    if (result instanceof Promise)
      return result.then((later) => apply(reply, caller, scope, policy, later, counter, onThrottled));
    return apply(reply, caller, scope, policy, result, counter, onThrottled);
  };
  return (req, reply, route, ctx) => {
    if (route.auth === "session") {
      const caller = options.sessionCaller?.(req);
      if (caller === undefined) return new HttpError(401, SIGN_IN_FIRST);
      return limited(caller, req, reply, route, ctx);
    }
    const bearer = route.auth === "key-or-bearer";
    const auth = registry.authenticate(presentedKey(req, bearer));
    if (!auth.ok) {
      observe?.refused(auth.reason);
      const detail =
        auth.reason === "missing" ? "Authentication credentials were not provided." : "Invalid API key.";
      return new HttpError(401, detail, { headers: bearer ? BEARER_CHALLENGE : CHALLENGE });
    }
    return limited(auth.caller, req, reply, route, ctx);
  };
}

// Counts the request, sets the RateLimit fields, and answers 429 when the window is full.
function apply(
  reply: Reply,
  caller: Caller,
  scope: string,
  policy: string,
  result: LimitResult,
  counter: RequestCounter | undefined,
  onThrottled: ((scope: string) => void) | undefined,
): HttpError | undefined {
  counter?.count(caller.id, scope, result.success);
  reply.header("RateLimit-Policy", policy);
  reply.header("RateLimit", `"${scope}";r=${result.remaining};t=${result.reset}`);
  if (!result.success) {
    onThrottled?.(scope);
    return new HttpError(429, throttledDetail(result.reset), {
      headers: { "Retry-After": String(result.reset) },
    });
  }
  return undefined;
}
