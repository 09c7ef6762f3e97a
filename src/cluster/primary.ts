/**
 * `WORKERS=N`: N server processes on one VM sharing one port through `node:cluster` (the primary
 * hands connections to the workers in turn). A worker that dies is logged and replaced at once,
 * or after a second when it exited by itself within 5 s of starting (a crash loop is not a busy loop). SIGTERM
 * or SIGINT is passed to every worker, each drains its requests as a single process does
 * (`http/graceful-shutdown.ts`), and the primary exits when the last one has; a worker still
 * running after the grace period and 5 s more is killed.
 */
import { AggregatorRegistry } from "prom-client";
import { startMetricsServer } from "../metrics/metrics-server.ts";
import { LISTEN_FAILED } from "../listen.ts";
import cluster, { type Worker } from "node:cluster";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { logOutput } from "../files/log-output.ts";

// Its own lines never end it, whatever happens to standard error (files/log-output.ts).
const stderr = logOutput(process.stderr);
const log = (line: string) => stderr.write(line + "\n");

/** Runs the primary: forks `config.workers` workers and keeps that many running. */
export function runPrimary(config: Config): void {
  // Workers run the entry point itself, whatever script started the primary (`make serve`'s too).
  cluster.setupPrimary({ exec: join(import.meta.dirname, "..", "main.ts") });
  let stopping = false;
  const started = new Map<number, number>();
  const fork = (): Worker => {
    const worker = cluster.fork();
    started.set(worker.id, Date.now());
    return worker;
  };
  cluster.on("exit", (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker.id) ?? 0);
    started.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    // A worker that cannot listen (it said why): every other would fail the same way.
    if (code === LISTEN_FAILED)
      return stopAll(LISTEN_FAILED, `Worker ${worker.process.pid} could not listen`);
    log(
      `Worker ${worker.process.pid} exited (${signal ?? `code ${code}`}) after ${lived} ms; starting another`,
    );
    // A worker that failed on its own soon after starting may fail again: not a busy loop.
    if (signal === null && lived < 5_000) setTimeout(fork, 1_000);
    else fork();
  });
  for (let i = 0; i < config.workers; i++) fork();
  if (config.metrics !== undefined) {
    // One scrape answers the sum over every worker (prom-client's aggregation over cluster IPC).
    const aggregator = new AggregatorRegistry();
    startMetricsServer({
      ...config.metrics,
      render: () => aggregator.clusterMetrics(),
      contentType: aggregator.contentType,
      log,
      failed: (why) => {
        log(why);
        stopAll(LISTEN_FAILED, "No metrics listener");
      },
    });
  }
  log(`Primary ${process.pid}: ${config.workers} workers on ${config.host}:${config.port}`);

  // Stops every worker (a signal's grace for each), then exits with `code`.
  function stopAll(code: number, why: string) {
    if (stopping) return;
    stopping = true;
    // The code the process ends with, however it ends: at the last worker's exit, or by itself.
    process.exitCode = code;
    const workers = Object.values(cluster.workers ?? {});
    log(`${why}: stopping ${workers.length} worker${workers.length === 1 ? "" : "s"}`);
    if (workers.length === 0) process.exit(code);
    for (const worker of workers) worker?.process.kill("SIGTERM");
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
      process.exit(1);
    }, config.shutdownGraceMs + 5_000).unref();
  }
  process.on("SIGTERM", () => stopAll(0, "SIGTERM"));
  process.on("SIGINT", () => stopAll(0, "SIGINT"));
}
