/**
 * The request pipeline on bare `node:http`, in the order docs/api.md's "Errors" section documents:
 * unknown path (404), authentication (401), throttling (429), wrong method (405), then the
 * handler, whose validation gives 400. Every error, thrown anywhere, is written in one place.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { badRequest, HttpError, writeError } from "./http-error.ts";
import { applyCors } from "./cors.ts";
import { asHttpError, isFault } from "./domain-errors.ts";
import { createRouter, type RequestContext, type Route } from "./router.ts";
import type { AccessLogEntry } from "./access-log.ts";
import { Reply } from "./reply.ts";

/**
 * Checks a request to a route with a scope before its handler: the answer that refuses it (a 401,
 * a 429), or undefined to let it through; a shared limiter answers later.
 */
export type Guard = (
  req: IncomingMessage,
  reply: Reply,
  route: Route,
  ctx: RequestContext,
) => HttpError | undefined | Promise<HttpError | undefined>;

export interface AppOptions {
  readonly routes: readonly Route[];
  readonly guard?: Guard;
  /** Where each request's entry goes. */
  readonly log?: (entry: AccessLogEntry) => void;
  /** Where the causes of 500s go. */
  readonly logError?: (error: unknown, ctx: RequestContext) => void;
  /** Origins allowed to call from a browser (CORS); none by default. */
  readonly corsOrigins?: ReadonlySet<string>;
  /**
   * Hears of every finished response, for the metrics: the route's path (`other` for an unknown
   * one, never the raw path), the method, the status and the seconds it took.
   */
  readonly observe?: (route: string, method: string, status: number, seconds: number) => void;
}

// A client's request id is taken when made of these characters: any header value may hold them.
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request ids an app makes: 12 random hex digits fixed when it is created, then a counter in base
 * 36 (`3f9a0c1d2e4b-1`, `3f9a0c1d2e4b-2`, ...): unique per process and across restarts, and
 * cheaper than a random UUID per request.
 */
export function requestIds(): () => string {
  const stem = randomBytes(6).toString("hex");
  let count = 0;
  return () => `${stem}-${(++count).toString(36)}`;
}

// The client's request id when it is sane, else one of ours.
function requestIdOf(req: IncomingMessage, newId: () => string): string {
  const incoming = req.headers["x-request-id"];
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : newId();
}

/** A `node:http` request listener serving `routes`. */
export function createApp(options: AppOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const pipeline: Pipeline = {
    route: createRouter(options.routes),
    guard: options.guard,
    log: options.log ?? (() => {}),
    logError: options.logError ?? ((error) => console.error(error)),
    cors: options.corsOrigins ?? new Set<string>(),
    observe: options.observe,
    newId: requestIds(),
  };
  return (req, res) => {
    const ctx = new Context(req, performance.now(), pipeline.newId);
    // Every answer carries them, whoever writes it. The id is ours or matched REQUEST_ID:
    // characters any header value may hold.
    const reply = new Reply(res)
      .header("X-Request-Id", ctx.requestId)
      .header("X-Content-Type-Options", "nosniff");
    // "close" comes after the last byte, or when the client went away first: either way, one line.
    res.on("close", () => {
      const ms = ctx.elapsedMs();
      pipeline.log(ctx.entry(res.statusCode, ms));
      pipeline.observe?.(ctx.route, ctx.method, res.statusCode, ms / 1000);
    });
    try {
      const found = pipeline.route(ctx.path);
      if (found !== undefined) ctx.route = found.path;
      if (applyCors(req, reply, pipeline.cors)) return;
      if (found === undefined) throw new HttpError(404, "Not found.");
      const refused = found.scope === null ? undefined : pipeline.guard?.(req, reply, found, ctx);
      if (refused instanceof Promise) {
        refused.then(
          (answer) =>
            answer === undefined
              ? serve(pipeline, req, reply, ctx, found)
              : fail(pipeline, reply, ctx, answer),
          (error) => fail(pipeline, reply, ctx, error),
        );
      } else if (refused !== undefined) fail(pipeline, reply, ctx, refused);
      else serve(pipeline, req, reply, ctx, found);
    } catch (error) {
      fail(pipeline, reply, ctx, error);
    }
  };
}

/** What every request of one app shares. */
interface Pipeline {
  readonly route: (path: string) => Route | undefined;
  readonly guard: Guard | undefined;
  readonly log: (entry: AccessLogEntry) => void;
  readonly logError: (error: unknown, ctx: RequestContext) => void;
  readonly cors: ReadonlySet<string>;
  readonly observe: AppOptions["observe"];
  /** A new request id, for a request without a sane one of its own. */
  readonly newId: () => string;
}

// One request's context: its id, its target as a URL, and what the access log needs.
class Context implements RequestContext {
  readonly requestId: string;
  readonly method: string;
  readonly url: URL;
  readonly path: string;
  readonly search: string;
  keyPrefix: string | null = null;
  /** The matched route's path, or `other`. */
  route = "other";
  limitFor: ((scope: string) => number | undefined) | undefined = undefined;
  readonly #started: number;

  constructor(req: IncomingMessage, started: number, newId: () => string) {
    this.requestId = requestIdOf(req, newId);
    this.method = req.method ?? "GET";
    this.#started = started;
    this.url = requestUrl(req.url);
    this.path = this.url.pathname;
    this.search = this.url.search;
  }

  /** Milliseconds since the request arrived. */
  elapsedMs(): number {
    return performance.now() - this.#started;
  }

  /** The access log's entry, now, `ms` after the request arrived (rounded to whole microseconds). */
  entry(status: number, ms: number): AccessLogEntry {
    return {
      time: new Date().toISOString(),
      request_id: this.requestId,
      method: this.method,
      path: this.path,
      status,
      duration_ms: Math.round(ms * 1000) / 1000,
      key: this.keyPrefix,
    };
  }
}

// Every error, thrown anywhere, is written here.
function fail(pipeline: Pipeline, reply: Reply, ctx: RequestContext, error: unknown): void {
  if (isFault(error)) pipeline.logError(error, ctx);
  if (reply.res.headersSent) {
    reply.res.destroy();
    return;
  }
  writeError(reply, asHttpError(error));
}

// After the guard: the method, a body where none belongs, then the handler.
function serve(pipeline: Pipeline, req: IncomingMessage, reply: Reply, ctx: Context, found: Route): void {
  try {
    const method = ctx.method;
    if (!found.methods.includes(method)) {
      throw new HttpError(405, `Method "${method}" not allowed.`, {
        headers: { Allow: found.methods.join(", ") },
      });
    }
    if ((method === "GET" || method === "HEAD") && hasBody(req)) {
      throw badRequest("bad_request", `A ${method} request carries no body; send the query in the URL.`);
    }
    const done = found.handler(req, reply, ctx);
    if (done instanceof Promise) done.catch((error) => fail(pipeline, reply, ctx, error));
  } catch (error) {
    fail(pipeline, reply, ctx, error);
  }
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
