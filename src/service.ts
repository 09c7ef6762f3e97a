/** Wires the store, the keys, the limiter, the datasets and the HTTP pipeline into one request listener. */
import { createRenderSlots } from "./http/render-slots.ts";
import type { RequestMetrics } from "./metrics/metrics.ts";
import { docsRoutes } from "./docs/docs-routes.ts";
import { ForecastIssues } from "./forecasts/forecast-issues.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type App, createApp } from "./http/app.ts";
import type { AccessLogEntry } from "./http/access-log.ts";
import { CATALOG_OPERATION, catalogHandler } from "./http/catalog-handler.ts";
import { datasetHandler, type DatasetHandlerOptions, FORMAT_PARAMETER } from "./http/dataset-handler.ts";
import { parseLatestQuery } from "./http/latest.ts";
import { parseOutlookQuery } from "./http/outlook-query.ts";
import { issuedWindow, outlookReader } from "./datasets/outlook-reader.ts";
import { rangeCostOf } from "./http/range-cost.ts";
import { HEALTH_OPERATION, healthHandler, type RedisHealth } from "./http/health-handler.ts";
import { createKeyGuard } from "./http/key-guard.ts";
import { buildOpenApi, OPENAPI_OPERATION, OPENAPI_PATH } from "./http/openapi.ts";
import type { Route } from "./http/router.ts";
import { EntityTag } from "./http/entity-tag.ts";
import { send } from "./http/send.ts";
import type { KeyRegistry } from "./keys/key-registry.ts";
import type { Limiter } from "./limits/limiter.ts";
import type { Scope } from "./limits/scopes.ts";
import type { ReadingStore } from "./store/reading-store.ts";
import { Lru } from "./cache/lru.ts";
import { createRecordCache } from "./records/record-cache.ts";
import { type DashboardOptions, dashboardRoutes } from "./dashboard/dashboard.ts";
import { mcpRoute } from "./mcp/mcp-route.ts";
import { publicBase } from "./http/public-base.ts";
import type { RequestCounter } from "./usage/request-counts.ts";
import type { ChangeGate } from "./files/change-gate.ts";
import {
  DATASETS,
  type DatasetDefinition,
  isHourly,
  openReader,
  type RecordStores,
} from "./datasets/registry.ts";
import { sourcesOf } from "./datasets/dataset-sources.ts";

const READ_METHODS = ["GET", "HEAD"];

export interface ServiceOptions {
  readonly store: ReadingStore;
  /** The datasets served: every one of `datasets/registry.ts` by default. */
  readonly datasets?: readonly DatasetDefinition[];
  /** Eskom's forecast issues; by default those kept in the store's directory. */
  readonly forecasts?: ForecastIssues;
  readonly registry: KeyRegistry;
  readonly limiter: Limiter;
  /** Default limits per scope, before a key's own. */
  readonly limits: Readonly<Record<Scope, number>>;
  /** The clock for freshness headers and health. */
  readonly now?: () => number;
  readonly log?: (entry: AccessLogEntry) => void;
  readonly logError?: (error: unknown) => void;
  /** The bound of the per-day record cache, in MB (16 by default, as `RECORD_CACHE_MB`). */
  readonly recordCacheMb?: number;
  /** The bound of the response-body cache, in MB (16 by default, as `RESPONSE_CACHE_MB`). */
  readonly responseCacheMb?: number;
  /** Where requests are counted per key and scope (the dashboard shows them). */
  readonly counter?: RequestCounter;
  /**
   * The data directory's change gate, polled once per request: the store and registries made with
   * it restat their files only when the directory changed (one stat per request instead of three).
   */
  readonly gate?: ChangeGate;
  /** Origins whose browser scripts may call the API (CORS); none by default. */
  readonly corsOrigins?: ReadonlySet<string>;
  /** How old the newest actual hour may be before /healthz says stale (36 hours by default). */
  /** With REDIS_URL: Redis's reachability and the failure policy, for /healthz. */
  readonly redis?: RedisHealth;
  readonly staleAfterMs?: number;
  /** Where requests, refused keys and throttles are counted for Prometheus (METRICS_PORT). */
  readonly metrics?: RequestMetrics;
  /** The account dashboard under /dashboard; without it, those paths are 404. */
  readonly dashboard?: Omit<
    DashboardOptions,
    "store" | "keys" | "limits" | "counter" | "now" | "logError" | "staleAfterMs" | "datasets"
  >;
}

const MB = 1024 * 1024;

// The OpenAPI document of the route table, this route included: made once, at the first request.
function openapiRoute(routes: readonly Route[], limits: Readonly<Record<string, number>>): Route {
  let document: { text: string; tag: EntityTag } | undefined;
  return {
    path: OPENAPI_PATH,
    methods: READ_METHODS,
    scope: null,
    handler: (req, reply) => {
      if (document === undefined) {
        const text = JSON.stringify(buildOpenApi(routes, limits));
        document = { text, tag: EntityTag.of(text, 32) };
      }
      return send(req, reply, {
        body: document.text,
        contentType: "application/json",
        etag: document.tag,
        cacheControl: "no-cache",
      });
    },
    doc: { operation: OPENAPI_OPERATION },
  };
}

// A dataset's routes: its ranges (costing one request per 366 days of a long one) and, for a
// dataset of stored hours, its newest hours. Each answers calls made in-process as well.
function datasetRoutes(
  dataset: DatasetDefinition,
  stores: RecordStores,
  shared: DatasetHandlerOptions,
): Route[] {
  const common = { methods: READ_METHODS, scope: dataset.scope };
  if (dataset.kind === "outlook") {
    // Its hours are those of its issue: asked for without a range, at one request each.
    const reader = outlookReader(stores.store, stores.forecasts, stores.now);
    const handler = datasetHandler(dataset, reader, shared, (params) =>
      parseOutlookQuery(params, dataset, (asOf) => issuedWindow(reader.issued(asOf))),
    );
    return [{ ...common, path: dataset.path, handler, call: handler, doc: { dataset } }];
  }
  const reader = openReader(dataset, stores);
  const range = datasetHandler(dataset, reader, shared);
  const routes: Route[] = [
    { ...common, path: dataset.path, handler: range, call: range, doc: { dataset }, cost: rangeCostOf },
  ];
  if (isHourly(dataset)) {
    const extras = { format: FORMAT_PARAMETER, ...dataset.parameters };
    const latest = datasetHandler(dataset, reader, shared, (params) =>
      parseLatestQuery(params, dataset, stores.store, extras),
    );
    routes.push({
      ...common,
      path: `${dataset.path}/latest`,
      handler: latest,
      call: latest,
      doc: { dataset, latest: true },
    });
  }
  return routes;
}

// The API's routes, each with its documentation: the datasets, the catalog, health and the
// OpenAPI document built from them.
function apiRoutes(options: ServiceOptions, datasets: readonly DatasetDefinition[]): Route[] {
  const { store, logError } = options;
  const now = options.now ?? Date.now;
  const records = createRecordCache({ maxBytes: (options.recordCacheMb ?? 16) * MB });
  const responses = new Lru<string, Buffer>(
    (options.responseCacheMb ?? 16) * MB,
    (body) => body.length + 100,
  );
  // One large body rendered at a time (in pieces), while libuv's pool compresses the others: every
  // other request waits at most one piece behind it.
  const slots = createRenderSlots(1);
  // And one compressed at a time, on one of libuv's threads: the others would take the cores the
  // event loop needs (a year's body takes 15 to 55 ms to compress).
  const compressions = createRenderSlots(1);
  // Whole histories stream a day at a time, yielding between days; two at once keep both cores
  // busy, and a third waits for one of them rather than slow all three.
  const streams = createRenderSlots(2);
  const forecasts = options.forecasts ?? new ForecastIssues(store.dir);
  const shared = { now, responses, slots, compressions, streams };
  const stores = { store, forecasts, records, now };
  const catalog = catalogHandler(datasets, store, sourcesOf, { now, staleAfterMs: options.staleAfterMs });
  const routes: Route[] = [
    ...datasets.flatMap((dataset) => datasetRoutes(dataset, stores, shared)),
    {
      path: "/api/v1/datasets",
      methods: READ_METHODS,
      scope: "metadata",
      handler: catalog,
      call: catalog,
      doc: { operation: CATALOG_OPERATION },
    },
    {
      path: "/healthz",
      methods: READ_METHODS,
      scope: null,
      handler: healthHandler(store, {
        now,
        onError: logError,
        staleAfterMs: options.staleAfterMs,
        redis: options.redis,
      }),
      doc: { operation: HEALTH_OPERATION },
    },
  ];
  routes.push(openapiRoute(routes, options.limits));
  return routes;
}

/** The service's request pipeline: the listener of its connections, and its in-process calls. */
export function createService(options: ServiceOptions): App {
  const { store, now, logError } = options;
  const datasets = options.datasets ?? DATASETS;
  const routes = [
    ...apiRoutes(options, datasets),
    ...docsRoutes(),
    mcpRoute({
      datasets,
      publicBase: (req) => publicBase(req, options.dashboard?.secureCookies === true),
      origins: options.corsOrigins ?? new Set(),
    }),
  ];
  if (options.dashboard !== undefined) {
    if (options.counter === undefined) throw new TypeError("The dashboard needs a request counter");
    routes.push(
      ...dashboardRoutes({
        ...options.dashboard,
        store,
        keys: options.registry,
        limits: options.limits,
        limiter: options.limiter,
        counter: options.counter,
        now,
        logError,
        staleAfterMs: options.staleAfterMs,
        datasets,
      }),
    );
  }
  const guard = createKeyGuard({
    registry: options.registry,
    limiter: options.limiter,
    defaults: options.limits,
    counter: options.counter,
    observe: options.metrics,
  });
  const { metrics } = options;
  const app = createApp({
    routes,
    guard,
    log: options.log,
    logError,
    corsOrigins: options.corsOrigins,
    observe:
      metrics === undefined
        ? undefined
        : (route, method, status, seconds) => metrics.request(route, method, status, seconds),
  });
  const gate = options.gate;
  if (gate === undefined) return app;
  return Object.assign(
    (req: IncomingMessage, res: ServerResponse) => {
      gate.poll();
      app(req, res);
    },
    { call: app.call },
  );
}
