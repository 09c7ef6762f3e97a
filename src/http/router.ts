/**
 * The route table is plain data: a path, the methods it answers, and a handler. The router only
 * finds the route for a path; the app decides 404 (no route) and 405 (wrong method), in the order
 * docs/api.md's "Errors" section gives.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { DatasetDoc } from "../records/dataset.ts";
import type { RouteDoc } from "./route-doc.ts";
import type { CallAnswer, Reply } from "./reply.ts";
import type { Caller } from "../keys/key-registry.ts";
import type { HttpError } from "./http-error.ts";

/** What a handler gets besides the raw request and response. */
export interface RequestContext {
  /** The target's path, as `URL` would give it. */
  readonly path: string;
  /** The target's query, `?` and on, or "" (as `URL.search`). */
  readonly search: string;
  /** The whole target as a URL (built when first asked for). */
  readonly url: URL;
  readonly requestId: string;
  /** The key prefix, once authentication has run; for the access log. */
  keyPrefix: string | null;
  /** The caller's limit in a scope, once authentication has run. */
  limitFor?: (scope: string) => number | undefined;
  /** Who the caller is, once authentication has run. */
  caller?: Caller;
  /** A call made in-process for `caller` (`app.ts`), as a request with its key would be answered. */
  call(
    caller: Caller,
    path: string,
    query: URLSearchParams,
    headers?: IncomingHttpHeaders,
  ): Promise<CallAnswer>;
}

/** Answers a request through its reply (`reply.ts`), which carries the pipeline's headers. */
export type Handler = (req: IncomingMessage, reply: Reply, ctx: RequestContext) => void | Promise<void>;

/** What an answer of the API's data reads of its request: the headers. */
export interface RequestHead {
  readonly headers: IncomingHttpHeaders;
}

/**
 * A handler that reads nothing of its request but the headers, so that it can also answer a call
 * made in-process (`app.ts`: the explorer's and MCP's requests, made for their caller).
 */
export type HeadHandler = (req: RequestHead, reply: Reply, ctx: RequestContext) => Promise<void>;

/**
 * What the OpenAPI document says of a route: a dataset's table (`openapi-datasets.ts` writes its
 * operation: its ranges, or with `latest` its newest hours), or an operation written out (`RouteDoc`). Routes without it (the dashboard, the
 * reference's pages) are not in the API's document.
 */
export type RouteDocs =
  { readonly dataset: DatasetDoc; readonly latest?: boolean } | { readonly operation: RouteDoc };

/** One entry of the route table: where, which methods, under which scope, what answers, what it is. */
export interface Route {
  readonly path: string;
  readonly methods: readonly string[];
  /** The limiter scope, or null for a route that needs no key (health, documents). */
  readonly scope: string | null;
  readonly handler: Handler;
  readonly doc?: RouteDocs;
  /** How many requests one counts as against its key's limit (`range-cost.ts`); 1 without it. */
  readonly cost?: (req: RequestHead, ctx: RequestContext) => number;
  /**
   * Who the caller is: the `X-API-KEY` (by default), or that key or an `Authorization: Bearer`
   * token (`key-or-bearer`: MCP clients send one).
   */
  readonly auth?: "key" | "key-or-bearer";
  /**
   * Whether the request may ask at all, checked before its key (MCP's check of `Origin` against
   * DNS rebinding): an HttpError refuses it, undefined lets it on.
   */
  readonly admit?: (req: IncomingMessage) => HttpError | undefined;
  /** The same answer for a call made in-process (`RequestContext.call`): the dataset routes and the catalog. */
  readonly call?: HeadHandler;
}

/** Finds the route for a path; a single trailing slash is ignored. */
export function createRouter(routes: readonly Route[]): (path: string) => Route | undefined {
  const table = new Map(routes.map((route) => [route.path, route]));
  return (path) => table.get(path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path);
}
