/**
 * The service's Prometheus metrics (docs/operations.md: "Metrics"), with `prom-client`, the
 * ecosystem's standard library: requests by route, method and status, their durations, throttles,
 * refused keys, how fresh the data is, the pulls, Redis, and the library's process and Node
 * metrics. No label carries a key, a key prefix, an account, an address or a raw path: routes
 * are the route table's paths (`other` for anything else), methods a fixed few. With `WORKERS`,
 * the primary sums the workers' counters; what every worker reads alike from the store is taken
 * once (`aggregator: "first"`, or the largest / smallest).
 */
import { type DeliveryCounts, fileOutbox } from "../webhooks/outbox-store.ts";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { httpMetrics } from "./http-metrics.ts";
import { sourceMetrics } from "./source-metrics.ts";
import type { Dataset } from "../records/dataset.ts";
import { lastSuccessfulPull, readPullRuns, refusedFiles } from "../pull/pull-state.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { DAY_MS, dayStart } from "../time.ts";

/** What the request path reports; see `createApp`'s and `createKeyGuard`'s `observe`. */
export interface RequestMetrics {
  request(route: string, method: string, status: number, seconds: number): void;
  refused(reason: "missing" | "invalid" | "revoked" | "disabled"): void;
  throttled(scope: string): void;
}

/** Request durations: a cache hit in well under a millisecond to a cold year in seconds. */
export const DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

const METHODS = new Set(["GET", "HEAD", "POST", "OPTIONS"]);

/** What the freshness gauge reads of a dataset. */
type MeasuredDataset = Pick<Dataset, "id" | "records">;

/** How many stored days back the newest hour of a dataset is looked for. */
const NEWEST_LOOKBACK_DAYS = 7;

// The newest hour holding a record of `dataset`, among the newest stored days.
function newestHour(store: ReadingStore, dataset: MeasuredDataset): number | null {
  const keys = [...store.refresh().manifest.keys()];
  for (const key of keys.slice(-NEWEST_LOOKBACK_DAYS).reverse()) {
    const from = dayStart(key);
    const newest = dataset
      .records(store, { start: from, end: from + DAY_MS, interval: "1h", options: {} })
      .at(-1);
    if (newest !== undefined) return Date.parse(newest.ts as string);
  }
  return null;
}

/** A registry of the service's metrics, and what the request path reports to it. */
export function createMetrics(options: {
  store: ReadingStore;
  datasets: readonly MeasuredDataset[];
  dir: string;
  /** With REDIS_URL: whether Redis is reachable. */
  redisUp?: () => boolean;
  /** Lines of the access log (stdout) and the server's log (stderr) that could not be written. */
  linesLost?: () => { stdout: number; stderr: number };
  /** STALE_AFTER_H, in ms. */
  staleAfterMs: number;
  now?: () => number;
  /** The webhook deliveries by state (DATA_DIR's outbox by default). */
  webhookCounts?: () => Promise<DeliveryCounts>;
}): { registry: Registry; observe: RequestMetrics } {
  const { store, datasets, dir } = options;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const request = httpMetrics(registry, DURATION_BUCKETS);
  const throttled = new Counter({
    name: "gds_throttled_requests_total",
    help: "Requests refused with 429, by limiter scope.",
    labelNames: ["scope"],
    registers: [registry],
  });
  const refused = new Counter({
    name: "gds_auth_failures_total",
    help: "Requests refused with 401, by reason: missing, invalid, revoked or disabled.",
    labelNames: ["reason"],
    registers: [registry],
  });
  for (const reason of ["missing", "invalid", "revoked", "disabled"]) refused.inc({ reason }, 0);
  const linesLost = options.linesLost;
  if (linesLost !== undefined) {
    new Counter({
      name: "gds_log_lines_lost_total",
      help: "Log lines that could not be written (a full disk under a redirected log, a reader gone), by output: stdout (the access log) or stderr.",
      labelNames: ["output"],
      registers: [registry],
      collect() {
        const lost = linesLost();
        this.reset();
        this.inc({ output: "stdout" }, lost.stdout);
        this.inc({ output: "stderr" }, lost.stderr);
      },
    });
  }
  gauges(registry, store, datasets, dir, options.redisUp);
  sourceMetrics(registry, { store, dir, staleAfterMs: options.staleAfterMs, now: options.now ?? Date.now });
  webhookGauge(registry, options.webhookCounts ?? (() => fileOutbox(dir).counts()));
  return {
    registry,
    observe: {
      request: (route, method, status, seconds) =>
        request(route, METHODS.has(method) ? method : "other", status, seconds),
      refused: (reason) => refused.inc({ reason }),
      throttled: (scope) => throttled.inc({ scope }),
    },
  };
}

// What a scrape reads from the store and the pull's files at that moment.
function gauges(
  registry: Registry,
  store: ReadingStore,
  datasets: readonly MeasuredDataset[],
  dir: string,
  redisUp: (() => boolean) | undefined,
): void {
  new Gauge({
    name: "gds_data_newest_hour_timestamp_seconds",
    aggregator: "max",
    help: "The newest stored hour with a record of each dataset, as a Unix time (absent when none).",
    labelNames: ["dataset"],
    registers: [registry],
    collect() {
      this.reset();
      for (const dataset of datasets) {
        const hour = newestHour(store, dataset);
        if (hour !== null) this.set({ dataset: dataset.id }, hour / 1000);
      }
    },
  });
  new Gauge({
    name: "gds_store_day_files",
    aggregator: "first",
    help: "UTC days in the store: one day file each (month packs are copies of them).",
    registers: [registry],
    collect() {
      this.set(store.refresh().manifest.size);
    },
  });
  pullGauges(registry, dir);
  if (redisUp !== undefined) {
    new Gauge({
      name: "gds_redis_up",
      aggregator: "min",
      help: "1 while Redis, which holds the shared limits and keys, is reachable; else 0.",
      registers: [registry],
      collect() {
        this.set(redisUp() ? 1 : 0);
      },
    });
  }
}

// What a scrape reads of the pull's own files.
function pullGauges(registry: Registry, dir: string): void {
  new Gauge({
    name: "gds_pull_last_success_timestamp_seconds",
    aggregator: "first",
    help: "When make pull last found every portal file current or ingested, as a Unix time (absent before the first).",
    registers: [registry],
    collect() {
      this.reset();
      const last = lastSuccessfulPull(dir);
      if (last !== null) this.set(last / 1000);
    },
  });
  new Gauge({
    name: "gds_pull_file_refused",
    aggregator: "first",
    help: "1 for each portal file whose last download the pull refused (kind: header, content) or could not get (download), until one is ingested; a changed header until it is accepted.",
    labelNames: ["file", "kind"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [file, refusal] of refusedFiles(dir)) this.set({ file, kind: refusal.kind }, 1);
    },
  });
  // A counter the pull keeps in its own file: read at each scrape.
  new Counter({
    name: "gds_pull_runs_total",
    aggregator: "first",
    help: "Runs of make pull, by outcome (ok: every file current or ingested; failed: some file refused), as the pull records them.",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      const runs = readPullRuns(dir);
      this.reset();
      this.inc({ outcome: "ok" }, runs.ok);
      this.inc({ outcome: "failed" }, runs.failed);
    },
  });
}

// The webhook deliveries in the outbox (pending) and its log (how they ended), at each scrape: one
// outbox for every worker (DATA_DIR's or Redis's), so the first worker's answer is the whole.
function webhookGauge(registry: Registry, counts: () => Promise<DeliveryCounts>): void {
  new Gauge({
    name: "gds_webhook_deliveries",
    aggregator: "first",
    help: "Webhook deliveries by state: pending (in the outbox), delivered, failed (past the retry schedule) or gone (410).",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      let now: DeliveryCounts;
      try {
        now = await counts();
      } catch {
        // Redis busy past its 100 ms, or away (gds_redis_up says which): the last counts read stay,
        // and the scrape answers with everything else rather than fail as a whole.
        return;
      }
      this.reset();
      for (const [state, n] of Object.entries(now)) this.set({ state }, n);
    },
  });
}
