/**
 * The request pipeline on bare `node:http`, in the order the README's "Errors" section documents:
 * unknown path (404), authentication (401), throttling (429), wrong method (405), then the
 * handler, whose validation gives 400. Every error, thrown anywhere, is written in one place.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { badRequest, HttpError, writeError } from "./http-error.ts";
import { applyCors } from "./cors.ts";
import { DamagedDayError } from "../store/reading-store.ts";
import { createRouter, type RequestContext, type Route } from "./router.ts";

/** One access-log entry; a key appears only as its prefix. */
export interface AccessLogEntry {
  readonly time: string;
  readonly request_id: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly duration_ms: number;
  readonly key: string | null;
}

/**
 * The entry as one JSON line, the same bytes as `JSON.stringify(entry)` at a fraction of the cost:
 * only the path and the key can hold characters JSON must escape, so only they go through it.
 */
export function accessLogLine(e: AccessLogEntry): string {
  return (
    `{"time":"${e.time}","request_id":${JSON.stringify(e.request_id)},"method":${JSON.stringify(e.method)},` +
    `"path":${JSON.stringify(e.path)},"status":${e.status},"duration_ms":${e.duration_ms},"key":${JSON.stringify(e.key)}}`
  );
}

/**
 * Runs before the method check on routes with a scope: throws (or rejects with) a 401 or 429, may
 * set headers. It answers at once, or with a promise when it must ask a shared limiter.
 */
export type Guard = (
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  ctx: RequestContext,
) => void | Promise<void>;

export interface AppOptions {
  readonly routes: readonly Route[];
  readonly guard?: Guard;
  readonly log?: (entry: AccessLogEntry) => void;
  /** Where the causes of 500s go. */
  readonly logError?: (error: unknown, ctx: RequestContext) => void;
  /** Origins allowed to call from a browser (CORS); none by default. */
  readonly corsOrigins?: ReadonlySet<string>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Request ids this process makes: 12 random hex digits fixed at start, then a counter in base 36
// (`3f9a0c1d2e4b-1`, `3f9a0c1d2e4b-2`, ...). Unique per process and across restarts, and far
// cheaper than a random UUID per request.
const ID_STEM = randomBytes(6).toString("hex");
let idCounter = 0;
function nextRequestId(): string {
  return `${ID_STEM}-${(++idCounter).toString(36)}`;
}

// The client's request id when it is sane, else one of ours.
function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers["x-request-id"];
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : nextRequestId();
}

/** A `node:http` request listener serving `routes`. */
export function createApp(options: AppOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const route = createRouter(options.routes);
  const log = options.log ?? (() => {});
  const logError = options.logError ?? ((error) => console.error(error));
  const cors = options.corsOrigins ?? new Set<string>();

  return (req, res) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    res.setHeader("X-Request-Id", requestId);
    res.setHeader("X-Content-Type-Options", "nosniff");
    const url = requestUrl(req.url);
    const ctx: RequestContext = { url, requestId, keyPrefix: null };
    const method = req.method ?? "GET";

    // "close" comes after the last byte, or when the client went away first: either way, one line.
    res.once("close", () => {
      log({
        time: new Date().toISOString(),
        request_id: requestId,
        method,
        path: url.pathname,
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        key: ctx.keyPrefix,
      });
    });

    const fail = (error: unknown): void => {
      if (!(error instanceof HttpError)) logError(error, ctx);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      writeError(res, error instanceof DamagedDayError ? damaged(error) : error);
    };

    // After the guard: the method, a body where none belongs, then the handler.
    const serve = (found: Route): void => {
      try {
        if (!found.methods.includes(method)) {
          throw new HttpError(405, `Method "${method}" not allowed.`, {
            headers: { Allow: found.methods.join(", ") },
          });
        }
        if ((method === "GET" || method === "HEAD") && hasBody(req)) {
          throw badRequest("bad_request", `A ${method} request carries no body; send the query in the URL.`);
        }
        const done = found.handler(req, res, ctx);
        if (done instanceof Promise) done.catch(fail);
      } catch (error) {
        fail(error);
      }
    };

    try {
      const found = route(url.pathname);
      if (applyCors(req, res, cors)) return;
      if (found === undefined) throw new HttpError(404, "Not found.");
      const guarded = found.scope === null ? undefined : options.guard?.(req, res, found, ctx);
      if (guarded instanceof Promise) guarded.then(() => serve(found), fail);
      else serve(found);
    } catch (error) {
      fail(error);
    }
  };
}

/** The answer for a request that needs a damaged day: a 503 naming the day, never the data. */
function damaged(error: DamagedDayError): HttpError {
  if (error.transient) {
    return new HttpError(503, `The stored data for ${error.day} is being updated. Try again in a second.`, {
      headers: { "Retry-After": "1" },
    });
  }
  return new HttpError(
    503,
    `The stored data for ${error.day} is damaged and is not served until it is repaired; the operator has been alerted. Try again later.`,
    { headers: { "Retry-After": "600" } },
  );
}

// A body is announced by a non-zero Content-Length or by Transfer-Encoding.
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

const NOWHERE = "/\u0000unparseable";

/**
 * The request target as a URL. A path is read as a path even when it starts with `//` (which
 * `new URL(path, base)` would take for a host); a target no URL can hold maps to a path no
 * route has, so it gets the 404 any unknown path gets, never an exception.
 */
export function requestUrl(target: string | undefined): URL {
  const raw = target ?? "/";
  try {
    return raw.startsWith("/") ? new URL(`http://localhost${raw}`) : new URL(raw);
  } catch {
    return new URL(`http://localhost${encodeURI(NOWHERE)}`);
  }
}
