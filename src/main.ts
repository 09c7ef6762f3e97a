/** The entry point: reads the settings, opens the stores and serves until stopped. */
import { getHeapStatistics } from "node:v8";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { loadConfig } from "./config.ts";
import { type AccessLogEntry, accessLogLine } from "./http/app.ts";
import { createKeyRegistry } from "./keys/key-registry.ts";
import { createLimiter } from "./limits/limiter.ts";
import { createService, DATASETS } from "./service.ts";
import { warmUp } from "./datasets/warm-up.ts";
import { createReadingStore } from "./store/reading-store.ts";
import { createAccountRegistry } from "./accounts/account-registry.ts";
import { createSessionStore } from "./accounts/session-store.ts";
import { createRequestCounter } from "./usage/request-counts.ts";
import { createHardenedServer } from "./http/hardened-server.ts";
import { createShutdown } from "./http/graceful-shutdown.ts";
import { createChangeGate } from "./files/change-gate.ts";

// Access-log lines are gathered and written once per turn of the event loop: one write, not one per request.
let pending = "";
function accessLog(entry: AccessLogEntry): void {
  if (pending === "") setImmediate(flushAccessLog);
  pending += accessLogLine(entry) + "\n";
}
function flushAccessLog(): void {
  const lines = pending;
  pending = "";
  process.stdout.write(lines);
}

const logError = (error: unknown) => process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
const config = loadConfig();
// One stat of the data directory per request tells the store and the registries whether to look again.
const gate = createChangeGate(config.dataDir);
const store = createReadingStore({ dir: config.dataDir, cacheDays: config.cacheDays, gate });
// The record cache lives on the V8 heap (the other caches hold buffers outside it): warn when the
// heap bound leaves it too little room, rather than fail later under load.
const heapMb = getHeapStatistics().heap_size_limit / 2 ** 20;
if (heapMb < 2 * config.recordCacheMb + 64) {
  process.stderr.write(
    `Warning: the heap bound (${Math.round(heapMb)} MB) is small for RECORD_CACHE_MB=${config.recordCacheMb}; ` +
      `raise NODE_HEAP_MB to at least ${2 * config.recordCacheMb + 64}\n`,
  );
}
const accounts = createAccountRegistry({ dir: config.dataDir, onError: logError, gate });
const registry = createKeyRegistry({
  dir: config.dataDir,
  onError: logError,
  isDisabled: (account) => accounts.isDisabled(account),
  gate,
});
const sessions = createSessionStore({ dir: config.dataDir, onError: logError });
const counter = createRequestCounter({ dir: config.dataDir, onError: logError });
// Every day file is checked against the manifest before the first request: damaged days are
// refused from the start (503), and /healthz says which.
const damaged = store.verify();
for (const [day, why] of damaged) process.stderr.write(`Damaged stored day ${day}: ${why}\n`);
try {
  const ms = warmUp(store, DATASETS);
  process.stderr.write(`Checked the store: the newest week reads in ${ms.toFixed(0)} ms\n`);
} catch (error) {
  // Serve anyway: /healthz and the requests that need the broken days will say what is wrong.
  process.stderr.write(`The store check failed; serving anyway.\n`);
  logError(error);
}
const server = createHardenedServer(
  createService({
    store,
    registry,
    limiter: createLimiter(),
    limits: config.limits,
    recordCacheMb: config.recordCacheMb,
    responseCacheMb: config.responseCacheMb,
    log: accessLog,
    logError,
    counter,
    dashboard: {
      dir: config.dataDir,
      accounts,
      sessions,
      secureCookies: config.cookieSecure,
      trustedProxies: config.trustedProxies,
    },
    staleAfterMs: config.staleAfterMs,
    corsOrigins: config.corsOrigins,
    gate,
  }),
  config.serverLimits,
);
server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : config.port;
  process.stderr.write(
    `Grid Data Service listening on http://${config.host}:${port} (data: ${config.dataDir}); ` +
      `dashboard at http://${config.host}:${port}/dashboard\n`,
  );
});
// For `make bench` only: with GDS_LOOP_STATS=1, SIGUSR2 prints the worst event-loop delay since
// the last SIGUSR2 as one JSON line on stderr.
if (process.env.GDS_LOOP_STATS === "1") {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  process.on("SIGUSR2", () => {
    process.stderr.write(JSON.stringify({ event_loop_max_ms: Number((delay.max / 1e6).toFixed(2)) }) + "\n");
    delay.reset();
  });
}
const shutdown = createShutdown(server, {
  graceMs: config.shutdownGraceMs,
  log: (line) => process.stderr.write(line + "\n"),
  // Last-used times, request counts, sessions and the access log are written before the exit.
  flush: async () => {
    await Promise.allSettled([registry.flushUsage(), counter.flush(), sessions.flush()]);
    counter.close();
    flushAccessLog();
    await new Promise((resolve) => process.stdout.write("", resolve));
  },
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => shutdown(signal));
