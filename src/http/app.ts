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
import { createRouter, type RequestContext, type RequestHead, type Route } from "./router.ts";
import type { AccessLogEntry } from "./access-log.ts";
import { type CallAnswer, Reply } from "./reply.ts";
import type { Caller } from "../keys/key-registry.ts";

/**
 * Who may use a route with a scope, and how much: `check` authenticates a request (its key) and
 * counts it against its caller's limit, `limit` counts a call made in-process for a caller already
 * known. Each answers the refusal (a 401, a 429), or undefined to let the request through.
 */
export interface Guard {
  check(
    req: IncomingMessage,
    reply: Reply,
    route: Route,
    ctx: RequestContext,
  ): Promise<HttpError | undefined>;
  limit(
    caller: Caller,
    req: RequestHead,
    reply: Reply,
    route: Route,
    ctx: RequestContext,
  ): Promise<HttpError | undefined>;
}

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

/** The service's request pipeline: the listener of its connections, and its in-process calls. */
export interface App {
  (req: IncomingMessage, res: ServerResponse): void;
  /**
   * A GET of `path` with `query` for `caller`, made in-process (the explorer's and MCP's data):
   * the same route, limits, counting, access-log line and metrics as a request with the
   * caller's key, answered as the connection would have been, with no second request.
   */
  readonly call: (
    caller: Caller,
    path: string,
    query: URLSearchParams,
    headers?: RequestHead["headers"],
  ) => Promise<CallAnswer>;
}

/** The pipeline serving `routes`. */
export function createApp(options: AppOptions): App {
  const pipeline: Pipeline = {
    route: createRouter(options.routes),
    guard: options.guard,
    log: options.log ?? (() => {}),
    logError: options.logError ?? ((error) => console.error(error)),
    cors: options.corsOrigins ?? new Set<string>(),
    observe: options.observe,
    newId: requestIds(),
    call: (caller, path, query, headers = { accept: "application/json" }) =>
      called(pipeline, caller, path, query, headers),
  };
  const app = (req: IncomingMessage, res: ServerResponse) => {
    const id = requestIdOf(req, pipeline.newId);
    const ctx = new Context(req.method ?? "GET", requestUrl(req.url), id, pipeline.call);
    const reply = new Reply(res);
    // "close" comes after the last byte, or when the client went away first: either way, one line.
    res.on("close", () => finish(pipeline, ctx, res.statusCode));
    void answer(pipeline, req, reply, ctx);
  };
  return Object.assign(app, { call: pipeline.call });
}

// A request through the pipeline: CORS, 404, the route's admission, the guard, then the route.
async function answer(pipeline: Pipeline, req: IncomingMessage, reply: Reply, ctx: Context): Promise<void> {
  // Every answer carries them, whoever writes it. The id is ours or matched REQUEST_ID:
  // characters any header value may hold.
  reply.header("X-Request-Id", ctx.requestId).header("X-Content-Type-Options", "nosniff");
  try {
    const found = pipeline.route(ctx.path);
    if (found !== undefined) ctx.route = found.path;
    if (applyCors(req, reply, pipeline.cors)) return;
    if (found === undefined) throw new HttpError(404, "Not found.");
    const barred = found.admit?.(req);
    if (barred !== undefined) throw barred;
    const refused = found.scope === null ? undefined : await pipeline.guard?.check(req, reply, found, ctx);
    if (refused !== undefined) throw refused;
    checkMethod(req, ctx, found);
    await found.handler(req, reply, ctx);
  } catch (error) {
    fail(pipeline, reply, ctx, error);
  }
}

// A call made in-process for `caller`: only routes that answer one, with the guard's limits.
async function called(
  pipeline: Pipeline,
  caller: Caller,
  path: string,
  query: URLSearchParams,
  headers: RequestHead["headers"],
): Promise<CallAnswer> {
  const search = query.size === 0 ? "" : `?${query.toString()}`;
  const ctx = new Context("GET", requestUrl(path + search), pipeline.newId(), pipeline.call);
  const reply = new Reply().header("X-Request-Id", ctx.requestId).header("X-Content-Type-Options", "nosniff");
  try {
    const found = pipeline.route(ctx.path);
    if (found?.call === undefined || found.scope === null) throw new HttpError(404, "Not found.");
    ctx.route = found.path;
    const head = { headers };
    const refused = await pipeline.guard?.limit(caller, head, reply, found, ctx);
    if (refused !== undefined) throw refused;
    await found.call(head, reply, ctx);
  } catch (error) {
    fail(pipeline, reply, ctx, error);
  }
  const answered = reply.answer();
  if (answered === undefined) throw new TypeError(`The in-process call of ${path} was not answered`);
  finish(pipeline, ctx, answered.status);
  return answered;
}

// One access-log line and one observation per request, however it ended.
function finish(pipeline: Pipeline, ctx: Context, status: number): void {
  const ms = ctx.elapsedMs();
  pipeline.log(ctx.entry(status, ms));
  pipeline.observe?.(ctx.route, ctx.method, status, ms / 1000);
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
  readonly call: App["call"];
}

// One request's context: its id, its target as a URL, and what the access log needs.
class Context implements RequestContext {
  readonly requestId: string;
  readonly method: string;
  readonly url: URL;
  readonly path: string;
  readonly search: string;
  readonly call: RequestContext["call"];
  keyPrefix: string | null = null;
  caller: Caller | undefined = undefined;
  /** The matched route's path, or `other`. */
  route = "other";
  limitFor: ((scope: string) => number | undefined) | undefined = undefined;
  readonly #started = performance.now();

  constructor(method: string, url: URL, requestId: string, call: RequestContext["call"]) {
    this.requestId = requestId;
    this.method = method;
    this.url = url;
    this.path = url.pathname;
    this.search = url.search;
    this.call = call;
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
  if (reply.headersSent) {
    reply.destroy();
    return;
  }
  writeError(reply, asHttpError(error));
}

// After the guard: the method, and no body where none belongs.
function checkMethod(req: IncomingMessage, ctx: Context, found: Route): void {
  const method = ctx.method;
  if (!found.methods.includes(method)) {
    throw new HttpError(405, `Method "${method}" not allowed.`, {
      headers: { Allow: found.methods.join(", ") },
    });
  }
  if ((method === "GET" || method === "HEAD") && hasBody(req)) {
    throw badRequest("bad_request", `A ${method} request carries no body; send the query in the URL.`);
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
