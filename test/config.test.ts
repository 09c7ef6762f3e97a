import { test } from "node:test";
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { loadConfig } from "../src/config.ts";

test("defaults: ./data, 127.0.0.1:8000, the spec's limits", () => {
  assert.deepEqual(loadConfig({}), {
    dataDir: resolve("data"),
    host: "127.0.0.1",
    port: 8000,
    cacheDays: 1000,
    recordCacheMb: 16,
    responseCacheMb: 16,
    limits: { normalized_data: 10, features: 3, metadata: 60 },
    cookieSecure: false,
    shutdownGraceMs: 10_000,
    serverLimits: {
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxHeaderBytes: 16_384,
      maxConnectionsPerAddress: 256,
    },
    staleAfterMs: 36 * 3_600_000,
    corsOrigins: new Set(),
    trustedProxies: 0,
    workers: 1,
    redisUrl: undefined,
    redisFailure: "closed",
    metrics: undefined,
    webhooks: { rules: { allowPrivate: false, allowHttp: false } },
  });
});

test("settings come from the environment; empty values mean the default", () => {
  const config = loadConfig({
    DATA_DIR: "/srv/gds",
    HOST: "0.0.0.0",
    PORT: "9000",
    CACHE_DAYS: "10",
    RATE_LIMITS: "features=5",
    COOKIE_SECURE: "true",
    SHUTDOWN_GRACE_S: "3",
    HEADERS_TIMEOUT_S: "2",
    MAX_CONNECTIONS_PER_ADDRESS: "8",
    STALE_AFTER_H: "6",
    CORS_ORIGINS: "https://observablehq.com, http://localhost:8888",
    TRUST_PROXY: "1",
    WEBHOOK_ALLOW_HTTP: "1",
    WEBHOOK_RETRY_S: "0,5,300",
    EXTRA: "x",
  });
  assert.deepEqual(config, {
    dataDir: "/srv/gds",
    host: "0.0.0.0",
    port: 9000,
    cacheDays: 10,
    recordCacheMb: 16,
    responseCacheMb: 16,
    limits: { normalized_data: 10, features: 5, metadata: 60 },
    cookieSecure: true,
    shutdownGraceMs: 3_000,
    serverLimits: {
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxHeaderBytes: 16_384,
      maxConnectionsPerAddress: 8,
    },
    staleAfterMs: 6 * 3_600_000,
    corsOrigins: new Set(["https://observablehq.com", "http://localhost:8888"]),
    trustedProxies: 1,
    workers: 1,
    redisUrl: undefined,
    redisFailure: "closed",
    metrics: undefined,
    webhooks: { rules: { allowPrivate: false, allowHttp: true }, scheduleMs: [0, 5_000, 300_000] },
  });
  assert.throws(() => loadConfig({ WEBHOOK_RETRY_S: "0,5m" }), /Invalid WEBHOOK_RETRY_S/);
  assert.equal(loadConfig({ PORT: "" }).port, 8000);
  assert.deepEqual(loadConfig({ METRICS_PORT: "9464" }).metrics, { host: "127.0.0.1", port: 9464 });
  assert.deepEqual(loadConfig({ METRICS_PORT: "9464", METRICS_HOST: "10.0.0.5" }).metrics, {
    host: "10.0.0.5",
    port: 9464,
  });
});

test("a bad setting is refused, naming the variable", () => {
  assert.throws(() => loadConfig({ PORT: "eighty" }), /Invalid PORT: "eighty" must be a whole number/);
  assert.throws(() => loadConfig({ PORT: "70000" }), /Invalid PORT: "70000" must be at most 65535/);
  assert.throws(() => loadConfig({ CACHE_DAYS: "0" }), /Invalid CACHE_DAYS: "0" must be at least 1/);
  assert.throws(
    () => loadConfig({ RATE_LIMITS: "features=many" }),
    /Invalid RATE_LIMITS: "features=many" is not SCOPE=N/,
  );
  assert.throws(
    () => loadConfig({ RATE_LIMITS: "everything=5" }),
    /Invalid RATE_LIMITS: "everything" is not a scope/,
  );
  assert.throws(
    () => loadConfig({ CORS_ORIGINS: "https://a.org/path" }),
    /Invalid CORS_ORIGINS: "https:\/\/a.org\/path" is not an origin such as https:\/\/a.org/,
  );
  assert.throws(
    () => loadConfig({ COOKIE_SECURE: "yes" }),
    /Invalid COOKIE_SECURE: "yes" must be "true" or "false"/,
  );
});

test("WORKERS and the shared state: auto is one per core; more than one needs REDIS_URL", () => {
  const redis = { REDIS_URL: "redis://127.0.0.1:6379" };
  assert.equal(loadConfig({ WORKERS: "auto", ...redis }).workers, availableParallelism());
  assert.equal(loadConfig({ WORKERS: "3", ...redis, REDIS_FAILURE: "open" }).redisFailure, "open");
  assert.throws(() => loadConfig({ WORKERS: "2" }), /Invalid WORKERS: "2" needs REDIS_URL/);
  assert.throws(() => loadConfig({ WORKERS: "0", ...redis }), /Invalid WORKERS/);
  assert.throws(
    () => loadConfig({ REDIS_URL: "localhost:6379" }),
    /Invalid REDIS_URL: "localhost:6379" must start with redis:\/\//,
  );
  assert.throws(() => loadConfig({ REDIS_FAILURE: "maybe" }), /Invalid REDIS_FAILURE/);
});
