/**
 * One server process: opens the stores, checks them, and serves until SIGTERM or SIGINT. With
 * `WORKERS` > 1 each worker of `cluster/primary.ts` runs this; with `REDIS_URL` the limits, the
 * kept documents and the webhooks are shared through Redis (`cluster/shared-state.ts`).
 */
import { AggregatorRegistry } from "prom-client";
import { createMetrics } from "./metrics/metrics.ts";
import { startMetricsServer } from "./metrics/metrics-server.ts";
import type { ReadingStore } from "./store/reading-store.ts";
import cluster from "node:cluster";
import { setTimeout as delay } from "node:timers/promises";
import { getHeapStatistics } from "node:v8";
import type { Config } from "./config.ts";
import { createAccessLog } from "./http/access-log.ts";
import { logOutput, type OutputLoss } from "./files/log-output.ts";
import { createKeyRegistry } from "./keys/key-registry.ts";
import type { RedisConnection } from "./shared/redis-connection.ts";
import type { DocumentStore } from "./files/document-store.ts";
import { createRedisRevealStore } from "./dashboard/redis-reveals.ts";
import { createService } from "./service.ts";
import { DATASETS, isHourly } from "./datasets/registry.ts";
import { warmUp } from "./records/warm-up.ts";
import { createReadingStore } from "./store/reading-store.ts";
import { createAccountRegistry } from "./accounts/account-registry.ts";
import { createSessionStore } from "./accounts/session-store.ts";
import { createRequestCounter } from "./usage/request-counts.ts";
import { createHardenedServer } from "./http/hardened-server.ts";
import { createShutdown } from "./http/graceful-shutdown.ts";
import { createChangeGate } from "./files/change-gate.ts";
import { upgradeInBackground } from "./store/migrations.ts";
import { READINGS_DIR } from "./store/manifest.ts";
import { ARCHIVE_DIR, BODIES } from "./pull/archive.ts";
import { removeDeadTempFiles } from "./files/atomic-write.ts";
import { join } from "node:path";
import { fileSecret, redisSecret } from "./dashboard/dashboard-secret.ts";
import { createRedisSignInThrottle } from "./dashboard/redis-sign-in-throttle.ts";
import { VERSION } from "./version.ts";
import { LISTEN_FAILED, listenAt } from "./listen.ts";
import { reportLoopDelayOnSignal } from "./metrics/loop-delay.ts";
import { startDeliveries } from "./webhooks/delivery-loop.ts";
import { openSharedState } from "./cluster/shared-state.ts";
import type { WebhookStores } from "./webhooks/webhook-stores.ts";

// Standard output carries the access log, standard error the server's own lines; a full disk under
// either, or a reader gone, loses lines (counted, warned of, in the metrics) but never ends the
// process (files/log-output.ts), nor does anything else that writes to them (a library's console).
const stderr = logOutput(process.stderr);
const stdout = logOutput(process.stdout, lostAccessLogWarning());

const logError = (error: unknown) => stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
const log = (line: string) => stderr.write(line + "\n");

// A port this process cannot listen on (listen.ts): said in one line, and the process ends.
function exitUnableToListen(why: string): void {
  log(why);
  void stderr.drained().then(() => process.exit(LISTEN_FAILED));
}

// What warns, at most once a minute, while the access log loses lines.
function lostAccessLogWarning(everyMs = 60_000): (loss: OutputLoss) => void {
  let warnedAt = -Infinity;
  return (loss) => {
    const now = Date.now();
    if (now - warnedAt < everyMs) return;
    warnedAt = now;
    log(
      `WARNING: the access log cannot be written to standard output (${loss.error.message}); ` +
        `${loss.lines} lines lost so far; requests are still served`,
    );
  };
}

// The access log goes to stdout, a line per request (docs/api.md: "Errors", the access log).
const accessLog = createAccessLog((line) => stdout.write(line));

// The stores and registries over DATA_DIR, gated by one stat of the directory per request; with
// REDIS_URL, the kept documents' changes go to Redis's copies, which DATA_DIR follows.
function openStores(config: Config, documents: DocumentStore) {
  const gate = createChangeGate(config.dataDir);
  const store = createReadingStore({ dir: config.dataDir, cacheDays: config.cacheDays, gate });
  // The record cache is held in the heap that NODE_HEAP_MB bounds (the other caches hold buffers
  // outside it): warn when that bound leaves it too little room, rather than fail later under load.
  const heapMb = getHeapStatistics().heap_size_limit / 2 ** 20;
  if (heapMb < 2 * config.recordCacheMb + 64) {
    log(
      `Warning: the heap bound (${Math.round(heapMb)} MB) is small for RECORD_CACHE_MB=${config.recordCacheMb}; ` +
        `raise NODE_HEAP_MB to at least ${2 * config.recordCacheMb + 64}`,
    );
  }
  const accounts = createAccountRegistry({ dir: config.dataDir, onError: logError, gate, documents });
  const registry = createKeyRegistry({
    dir: config.dataDir,
    onError: logError,
    isDisabled: (account) => accounts.isDisabled(account),
    gate,
    documents,
  });
  const sessions = createSessionStore({ dir: config.dataDir, onError: logError, documents });
  const counter = createRequestCounter({ dir: config.dataDir, onError: logError, documents });
  return { gate, store, accounts, registry, sessions, counter };
}

// Every day file is checked against the manifest before the first request: damaged days are
// refused from the start (503), and /healthz says which. Then the newest week is read once.
function checkStore(store: ReturnType<typeof openStores>["store"]): void {
  const blocked = store.refresh().unavailable;
  if (blocked !== undefined) log(`WARNING: ${blocked.message}; every dataset request answers 503 until then`);
  for (const [day, why] of store.verify()) log(`Damaged stored day ${day}: ${why}`);
  try {
    const ms = warmUp(store, DATASETS.filter(isHourly));
    log(`Checked the store: the newest week reads in ${ms.toFixed(0)} ms`);
  } catch (error) {
    // Serve anyway: /healthz and the requests that need the broken days will say what is wrong.
    log(`The store check failed; serving anyway.`);
    logError(error);
  }
}

// With METRICS_PORT: this process's metrics, served on their own listener, or with WORKERS
// handed to the primary, which serves the sum of every worker's (cluster/primary.ts).
function startMetrics(
  config: Config,
  store: ReadingStore,
  redis?: RedisConnection,
  webhooks?: WebhookStores,
) {
  if (config.metrics === undefined) return undefined;
  const { registry, observe } = createMetrics({
    store,
    datasets: DATASETS.filter(isHourly),
    dir: config.dataDir,
    redisUp: redis === undefined ? undefined : () => redis.up,
    linesLost: () => ({ stdout: stdout.lost?.lines ?? 0, stderr: stderr.lost?.lines ?? 0 }),
    staleAfterMs: config.staleAfterMs,
    webhookCounts: () => webhooks!.outbox.counts(),
  });
  if (cluster.isWorker) {
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([registry]);
  } else {
    startMetricsServer({
      ...config.metrics,
      render: () => registry.metrics(),
      contentType: registry.contentType,
      log,
      failed: exitUnableToListen,
    });
  }
  return observe;
}

// The sign-in tokens' secret: Redis's when the state is shared (every VM accepts every form), else
// DATA_DIR's (every process of this VM does).
async function dashboardSecret(config: Config, redis: RedisConnection | undefined): Promise<Buffer> {
  if (redis !== undefined && redis.up) {
    try {
      return await redisSecret(redis.client);
    } catch (error) {
      log(`Could not read the dashboard's secret from Redis (${(error as Error).message}); using DATA_DIR's`);
    }
  }
  return fileSecret(config.dataDir);
}

// The dashboard's parts; with several processes, Redis holds its show-once secrets and sign-in limits.
async function dashboardOptions(
  config: Config,
  stores: ReturnType<typeof openStores>,
  redis: RedisConnection | undefined,
  documents: DocumentStore,
) {
  return {
    dir: config.dataDir,
    accounts: stores.accounts,
    sessions: stores.sessions,
    secureCookies: config.cookieSecure,
    trustedProxies: config.trustedProxies,
    reveals: redis === undefined ? undefined : createRedisRevealStore(redis.client),
    throttle: redis === undefined ? undefined : createRedisSignInThrottle(redis.client),
    documents,
    secret: await dashboardSecret(config, redis),
    webhookRules: config.webhooks.rules,
  };
}

// At a stop: last-used times, request counts, sessions and the access log are written before the
// exit. What could not be written is said, and the exit is then not 0, so a supervisor sees it.
async function writeState(stores: ReturnType<typeof openStores>, redis: RedisConnection | undefined) {
  const written = await Promise.allSettled(
    [() => stores.registry.flushUsage(), () => stores.counter.flush(), () => stores.sessions.flush()].map(
      (flush) => (redis === undefined ? flush() : tried(flush)),
    ),
  );
  await redis?.close();
  stores.counter.close();
  await stdout.drained();
  const failed = written.flatMap((w, n) =>
    w.status === "rejected"
      ? [`${["last-use times", "request counts", "sessions"][n]}: ${(w.reason as Error).message}`]
      : [],
  );
  if (failed.length > 0) throw new Error(failed.join("; "));
}

// A stop's writes to Redis are tried again: each command has 100 ms (a request never waits longer
// on Redis), which a busy machine can miss, and a stop loses what it does not write. Each flush
// keeps what it could not write for the next.
async function tried(flush: () => Promise<void>, tries = 5): Promise<void> {
  for (let n = 1; ; n++) {
    try {
      return await flush();
    } catch (error) {
      if (n >= tries) throw error;
      await delay(100 * n);
    }
  }
}

// The temp files of writers that were killed (a CLI, a server, an ingest or a pull), which nothing
// else removes: in DATA_DIR (the kept documents, the pull's state), its readings and the archive.
// Leftovers are no reason not to serve: one that cannot be removed (a read-only store) is logged.
function removeKilledWritersTemps(dataDir: string): void {
  for (const sub of ["", READINGS_DIR, join(ARCHIVE_DIR, BODIES)]) {
    const dir = join(dataDir, sub);
    try {
      const removed = removeDeadTempFiles(dir);
      if (removed.length > 0) {
        log(
          `Removed ${removed.length} temp file(s) that killed writers left in ${dir}: ${removed.join(", ")}`,
        );
      }
    } catch (error) {
      log(`Could not remove the temp files killed writers left in ${dir}: ${(error as Error).message}`);
    }
  }
}

/** Serves `config` in this process until stopped. */
export async function runServerProcess(config: Config): Promise<void> {
  removeKilledWritersTemps(config.dataDir);
  const { limiter, redis, documents, webhooks } = await openSharedState(config, log);
  const stores = openStores(config, documents);
  const { gate, store, registry, counter } = stores;
  checkStore(store);
  const metrics = startMetrics(config, store, redis, webhooks);
  const server = createHardenedServer(
    createService({
      store,
      registry,
      limiter,
      redis: redis === undefined ? undefined : { up: () => redis.up, failure: config.redisFailure },
      limits: config.limits,
      recordCacheMb: config.recordCacheMb,
      responseCacheMb: config.responseCacheMb,
      log: accessLog,
      logError,
      counter,
      metrics,
      dashboard: { ...(await dashboardOptions(config, stores, redis, documents)), webhooks },
      staleAfterMs: config.staleAfterMs,
      corsOrigins: config.corsOrigins,
      gate,
    }),
    config.serverLimits,
  );
  const at = { host: config.host, port: config.port, hostSetting: "HOST", portSetting: "PORT" };
  listenAt(
    server,
    at,
    (port) => {
      log(
        `Grid Data Service ${VERSION} listening on http://${config.host}:${port} (data: ${config.dataDir}); ` +
          `dashboard at http://${config.host}:${port}/dashboard`,
      );
      // Files in an older format are rewritten now, one at a time under the ingest lock, while
      // requests are served (docs/operations.md: "Upgrades").
      upgradeInBackground(config.dataDir, log).catch((error: unknown) => {
        log(
          `Could not upgrade the store's older files (${(error as Error).message}); run npm run upgrade-store`,
        );
      });
    },
    exitUnableToListen,
  );
  if (process.env.GDS_LOOP_STATS === "1") reportLoopDelayOnSignal(log);
  const deliveries = startDeliveries({ webhooks, ...config.webhooks, log });
  const shutdown = createShutdown(server, {
    graceMs: config.shutdownGraceMs,
    log,
    flush: async () => {
      await deliveries.stop();
      await writeState(stores, redis);
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => shutdown(signal));
}
