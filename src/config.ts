/** The service's settings, read once from the environment and validated. */
import * as v from "valibot";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { configuredLimits, type Scope } from "./limits/scopes.ts";
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "./http/hardened-server.ts";
import { parseCorsOrigins } from "./http/cors.ts";
import { parseEnv, PositiveInteger } from "./env-settings.ts";
import { parseSealingKeys } from "./files/sealing.ts";

const Port = v.pipe(
  v.string(),
  v.regex(/^\d+$/, "must be a whole number"),
  v.transform(Number),
  v.maxValue(65535, "must be at most 65535"),
);
const Positive = PositiveInteger;

const EnvSchema = v.object({
  DATA_DIR: v.optional(v.string(), "data"),
  HOST: v.optional(v.string(), "127.0.0.1"),
  PORT: v.optional(Port, "8000"),
  CACHE_DAYS: v.optional(Positive, "1000"),
  RECORD_CACHE_MB: v.optional(Positive, "16"),
  RESPONSE_CACHE_MB: v.optional(Positive, "16"),
  RATE_LIMITS: v.optional(v.string(), ""),
  COOKIE_SECURE: v.optional(v.picklist(["true", "false"], 'must be "true" or "false"'), "false"),
  SHUTDOWN_GRACE_S: v.optional(Positive, "10"),
  HEADERS_TIMEOUT_S: v.optional(Positive, "10"),
  REQUEST_TIMEOUT_S: v.optional(Positive, "30"),
  KEEP_ALIVE_TIMEOUT_S: v.optional(Positive, "5"),
  MAX_CONNECTIONS_PER_ADDRESS: v.optional(Positive, "256"),
  STALE_AFTER_H: v.optional(Positive, "36"),
  CORS_ORIGINS: v.optional(v.string(), ""),
  TRUST_PROXY: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d$/, "must be the number of proxies in front, 0 to 9"),
      v.transform(Number),
    ),
    "0",
  ),
  WORKERS: v.optional(
    v.union(
      [v.literal("auto"), PositiveInteger],
      'must be a whole number of at least 1, or "auto" (one per core)',
    ),
    "1",
  ),
  REDIS_URL: v.optional(
    v.pipe(v.string(), v.regex(/^rediss?:\/\//, "must start with redis:// or rediss://")),
  ),
  REDIS_FAILURE: v.optional(v.picklist(["closed", "open"], 'must be "closed" or "open"'), "closed"),
  METRICS_PORT: v.optional(Port),
  METRICS_HOST: v.optional(v.string(), "127.0.0.1"),
  WEBHOOK_ALLOW_PRIVATE: v.optional(v.picklist(["0", "1"], 'must be "0" or "1"'), "0"),
  WEBHOOK_ALLOW_HTTP: v.optional(v.picklist(["0", "1"], 'must be "0" or "1"'), "0"),
  // Checked in loadConfig, whose message does not repeat a secret's value.
  WEBHOOK_SEAL_KEY: v.optional(v.string()),
  WEBHOOK_RETRY_S: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, "must be seconds, comma-separated (e.g. 0,5,300)"),
      v.transform((text) => text.split(",").map((s) => Number(s) * 1000)),
    ),
  ),
});

/** Validated settings. */
export interface Config {
  /** The store directory. */
  readonly dataDir: string;
  /** Where webhooks may go (WEBHOOK_ALLOW_PRIVATE, WEBHOOK_ALLOW_HTTP), and the retry waits (WEBHOOK_RETRY_S). */
  readonly webhooks: {
    readonly rules: { readonly allowPrivate: boolean; readonly allowHttp: boolean };
    readonly scheduleMs?: readonly number[];
    /** The sealing keys (WEBHOOK_SEAL_KEY), when not DATA_DIR's file. */
    readonly sealKey?: string;
  };
  readonly host: string;
  readonly port: number;
  /** How many parsed days the server keeps in memory (about 10 KB each). */
  readonly cacheDays: number;
  /** The bound of the per-day serialized-record cache, MB. */
  readonly recordCacheMb: number;
  /** The bound of the response-body cache, MB. */
  readonly responseCacheMb: number;
  /** Requests per key in any 60 s, by scope, before a key's own overrides. */
  readonly limits: Readonly<Record<Scope, number>>;
  /** Whether dashboard cookies carry `Secure`: set it when a TLS proxy is in front. */
  readonly cookieSecure: boolean;
  /** How long requests in flight may take to finish after SIGTERM. */
  readonly shutdownGraceMs: number;
  /** The HTTP server's bounds against slow or greedy clients. */
  readonly serverLimits: ServerLimits;
  /** How old the newest actual hour may be before /healthz says stale. */
  readonly staleAfterMs: number;
  /** Origins whose browser scripts may call the API (CORS); empty: none. */
  readonly corsOrigins: ReadonlySet<string>;
  /** Reverse proxies in front that append to X-Forwarded-For (for the sign-in throttle). */
  readonly trustedProxies: number;
  /** Server processes on this VM (`node:cluster`); more than one needs `redisUrl`. */
  readonly workers: number;
  /** Where the shared state lives (limits, keys); undefined: in this process and DATA_DIR. */
  readonly redisUrl: string | undefined;
  /** What a request meets while Redis is unreachable: 503 (`closed`) or this process's own state (`open`). */
  readonly redisFailure: "closed" | "open";
  /** Where Prometheus metrics are served (`METRICS_PORT`); undefined: not at all. */
  readonly metrics: { readonly host: string; readonly port: number } | undefined;
}

// `parse()`, or a TypeError naming the setting and what is wrong with it (never its value).
function checked<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new TypeError(`Invalid ${name}: ${(error as Error).message}`);
  }
}

/** Reads the settings from `env`; throws a TypeError naming the bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const settings = parseEnv(EnvSchema, env);
  const { DATA_DIR, HOST, PORT, CACHE_DAYS, RECORD_CACHE_MB, RESPONSE_CACHE_MB, RATE_LIMITS, COOKIE_SECURE } =
    settings;
  const corsOrigins = checked("CORS_ORIGINS", () => parseCorsOrigins(settings.CORS_ORIGINS));
  const limits = checked("RATE_LIMITS", () => configuredLimits(RATE_LIMITS));
  const sealKey = settings.WEBHOOK_SEAL_KEY;
  if (sealKey !== undefined) checked("WEBHOOK_SEAL_KEY", () => parseSealingKeys(sealKey, "the setting"));
  const workers = settings.WORKERS === "auto" ? availableParallelism() : settings.WORKERS;
  if (workers > 1 && settings.REDIS_URL === undefined) {
    throw new TypeError(
      `Invalid WORKERS: "${workers}" needs REDIS_URL: several processes must share one set of limits and keys (docs/operations.md: "Running on more than one core or VM")`,
    );
  }
  return {
    dataDir: resolve(DATA_DIR),
    host: HOST,
    port: PORT,
    cacheDays: CACHE_DAYS,
    recordCacheMb: RECORD_CACHE_MB,
    responseCacheMb: RESPONSE_CACHE_MB,
    limits,
    cookieSecure: COOKIE_SECURE === "true",
    shutdownGraceMs: settings.SHUTDOWN_GRACE_S * 1000,
    serverLimits: {
      ...DEFAULT_SERVER_LIMITS,
      headersTimeoutMs: settings.HEADERS_TIMEOUT_S * 1000,
      requestTimeoutMs: settings.REQUEST_TIMEOUT_S * 1000,
      keepAliveTimeoutMs: settings.KEEP_ALIVE_TIMEOUT_S * 1000,
      maxConnectionsPerAddress: settings.MAX_CONNECTIONS_PER_ADDRESS,
    },
    staleAfterMs: settings.STALE_AFTER_H * 3_600_000,
    corsOrigins,
    trustedProxies: settings.TRUST_PROXY,
    workers,
    redisUrl: settings.REDIS_URL,
    redisFailure: settings.REDIS_FAILURE,
    webhooks: {
      rules: {
        allowPrivate: settings.WEBHOOK_ALLOW_PRIVATE === "1",
        allowHttp: settings.WEBHOOK_ALLOW_HTTP === "1",
      },
      ...(settings.WEBHOOK_RETRY_S === undefined ? {} : { scheduleMs: settings.WEBHOOK_RETRY_S }),
      ...(sealKey === undefined ? {} : { sealKey }),
    },
    metrics:
      settings.METRICS_PORT === undefined
        ? undefined
        : { host: settings.METRICS_HOST, port: settings.METRICS_PORT },
  };
}
