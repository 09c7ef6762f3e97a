/**
 * `make bench`: measures the real service under load on generated data, next to a bare
 * `node:http` server sending the same bytes from memory (the ceiling for this machine) and a
 * Fastify 5 server doing the same work for them (`fastify-peer.ts`: key check, limiter, JSON
 * access log). Load comes
 * from `wrk` (a C client that needs far less CPU than a Node one, so it hides less of the server's
 * cost); for each scenario it reports req/s, p50, p99 and max latency, the server's CPU time per
 * request (user + system from /proc/<pid>/stat, which no client can hide) and the server's worst
 * event-loop delay. It is a benchmark, not a test: it prints figures and never fails on them. The
 * last line is one line of JSON with every figure and the ratios against the baseline.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { mixedRound } from "./mixed-load.ts";
import { HISTORY_PATHS, measureDownload } from "./whole-history.ts";

const ROOT = join(import.meta.dirname, "..");
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
// Warm scenarios get this long under the same load, unmeasured, before the measured run.
const WARM_UP_SECONDS = 2;
/** The service's warm-up on (a) before the pairs, after the other scenarios. */
const PAIR_WARM_UP_SECONDS = 5;
/** How many pairs of (a) without and with METRICS_PORT the load part runs (BENCH_METRICS_PAIRS). */
const METRICS_PAIRS = Number(process.env.BENCH_METRICS_PAIRS ?? 8);
/** How many pairs of (a) and the bare server, taken in turn, the load part runs after its scenarios (BENCH_PAIRS). */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 16);
/** How long each side of a pair is loaded (BENCH_PAIR_SECONDS): short, so that a pair's two sides see the same host. */
const PAIR_SECONDS = Number(process.env.BENCH_PAIR_SECONDS ?? 3);
// The node flags `make serve` runs the server with (the Makefile exports them).
const SERVICE_FLAGS = (process.env.GDS_NODE_FLAGS ?? "").split(" ").filter(Boolean);
// Which parts to run: BENCH_PARTS=ingest,load,mixed,scale,cold,sweep,history (the default).
const PARTS = new Set((process.env.BENCH_PARTS ?? "ingest,load,mixed,scale,cold,sweep,history").split(","));
// The load part runs the server under test on CPU 0 and wrk on CPU 1 (with `taskset`, on two or
// more CPUs; BENCH_PIN=0 turns it off), so that the client never takes the server's core and the
// kernel never moves either mid-run: the same placement for the service and the bare server.
const PIN =
  process.env.BENCH_PIN !== "0" &&
  cpus().length >= 2 &&
  spawnSync("taskset", ["-c", "0", "true"]).status === 0;
const onCpu = (cpu: number, command: string, args: string[]): [string, string[]] =>
  PIN ? ["taskset", ["-c", String(cpu), command, ...args]] : [command, args];
const work = mkdtempSync(join(tmpdir(), "gds-bench-"));
const log = (text: string) => process.stderr.write(text + "\n");

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function rssKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

async function waitForListening(child: ChildProcess, processes = 1): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child.stderr!.on("data", (chunk) => {
      seen += chunk;
      if ((seen.match(/listening/g) ?? []).length >= processes) resolve();
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${seen}`)));
  });
}

async function startService(
  dataDir: string,
  env: Record<string, string> = {},
  pinned = false,
  node = process.execPath,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const flags = [...SERVICE_FLAGS, "--import", "tsx", "src/main.ts"];
  const [command, args] = pinned ? onCpu(0, node, flags) : [node, flags];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      GDS_LOOP_STATS: "1",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await waitForListening(child, Number(env.WORKERS ?? 1));
  return { child, url: `http://127.0.0.1:${port}` };
}

/**
 * A bare `node:http` server sending `bodyFile` from memory: with only Content-Type and
 * Content-Length, or with `head`, a flat [name, value, ...] list (the service's own head for the
 * same response), so that the cost of writing those headers through node:http is measured apart
 * from the service's own work. It reports its worst event-loop delay as the service does, so that
 * the host's own stalls are seen apart from the service's.
 */
async function startBaseline(
  bodyFile: string,
  head?: readonly string[],
  node = process.execPath,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(...onCpu(0, node, ["-e", bareServerCode(bodyFile, head, port)]), {
    stdio: ["ignore", "ignore", "pipe"],
  });
  await waitForListening(child);
  return { child, url: `http://127.0.0.1:${port}` };
}

/** The Fastify peer (`fastify-peer.ts`) on `dataDir`'s keys, sending `bodyFile`, on CPU 0. */
async function startPeer(
  dataDir: string,
  bodyFile: string,
  node = process.execPath,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const args = [
    ...SERVICE_FLAGS,
    "--import",
    "tsx",
    "bench/fastify-peer.ts",
    dataDir,
    bodyFile,
    String(port),
  ];
  const child = spawn(...onCpu(0, node, args), { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  await waitForListening(child);
  return { child, url: `http://127.0.0.1:${port}` };
}

/** The bare server's program (see startBaseline), for `node -e`. */
function bareServerCode(bodyFile: string, head: readonly string[] | undefined, port: number): string {
  return `
    const body = require("node:fs").readFileSync(${JSON.stringify(bodyFile)});
    const head = ${JSON.stringify(head ?? null)} ?? ["Content-Type", "application/json", "Content-Length", body.length];
    // The same event-loop figure the service gives with GDS_LOOP_STATS=1: what the host alone costs.
    const delay = require("node:perf_hooks").monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    process.on("SIGUSR2", () => {
      process.stderr.write(JSON.stringify({ event_loop_max_ms: Number((delay.max / 1e6).toFixed(2)) }) + "\\n");
      delay.reset();
    });
    require("node:http").createServer((req, res) => {
      res.writeHead(200, head);
      res.end(body);
    }).listen(${port}, "127.0.0.1", () => process.stderr.write("listening\\n"));`;
}

/** Loads a bare baseline server (see startBaseline) with the same client, warm-up and window. */
async function baselineLoad(
  bodyFile: string,
  head: readonly string[] | undefined,
  path: string,
  headers: Record<string, string>,
): Promise<Load> {
  const baseline = await startBaseline(bodyFile, head);
  const r = await warmedLoad(baseline.url + path, baseline.child, { headers, loopStats: true, pinned: true });
  await stop(baseline.child);
  log(
    `  ${r.reqPerSec} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, ${(r.cpuMsPerReq * 1000).toFixed(0)} µs CPU/req, event loop max ${r.loopMaxMs ?? "?"} ms`,
  );
  return r;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise((resolve) => {
    child.on("exit", resolve);
    child.kill("SIGTERM");
  });
}

interface Load {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Server CPU (user + system) per request, ms. */
  cpuMsPerReq: number;
  /** The server's worst event-loop delay in the window, ms (the service only). */
  loopMaxMs?: number;
  non2xx: number;
}

const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

// utime + stime of a process and the processes it started (cluster workers), ms.
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  let children: number[] = [];
  try {
    children = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map(Number);
  } catch {
    // none
  }
  return (
    ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK + children.reduce((t, c) => t + cpuMs(c), 0)
  );
}

function wrkMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (m === null) return NaN;
  const ms = Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as "us" | "ms" | "s" | "m"];
  return Number(ms.toPrecision(6)); // 813.00us is 0.813 ms, not 0.8130000000000001
}

// Asks a service started with GDS_LOOP_STATS=1 for its worst event-loop delay since the last ask.
async function loopMax(child: ChildProcess): Promise<number | undefined> {
  if (child.stderr === null) return undefined;
  const line = new Promise<number | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 2000);
    const onData = (chunk: Buffer) => {
      const m = /"event_loop_max_ms":([\d.]+)/.exec(String(chunk));
      if (m === null) return;
      clearTimeout(timer);
      child.stderr!.off("data", onData);
      resolve(Number(m[1]));
    };
    child.stderr!.on("data", onData);
  });
  child.kill("SIGUSR2");
  return line;
}

/** Loads `url` with wrk; `service` asks the process for its event-loop figures too. */
async function load(
  url: string,
  child: ChildProcess,
  options: { headers: Record<string, string>; seconds?: number; loopStats: boolean; pinned?: boolean },
): Promise<Load> {
  const args = ["-t1", `-c${CONNECTIONS}`, `-d${options.seconds ?? DURATION}s`, "--latency"];
  for (const [k, v] of Object.entries(options.headers)) args.push("-H", `${k}: ${v}`);
  if (options.loopStats) await loopMax(child); // starts the event-loop window afresh
  const cpuBefore = cpuMs(child.pid!);
  const wrk: [string, string[]] = options.pinned === true ? onCpu(1, "wrk", args) : ["wrk", args];
  const out = execFileSync(wrk[0], [...wrk[1], url], { encoding: "utf8" });
  const cpu = cpuMs(child.pid!) - cpuBefore;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  const latency = /Latency\s+\S+\s+\S+\s+(\S+)/.exec(out);
  const pct = (p: string) => wrkMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(out)?.[1] ?? "");
  return {
    reqPerSec: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN)),
    p50Ms: pct("50"),
    p99Ms: pct("99"),
    maxMs: latency ? wrkMs(latency[1]!) : NaN,
    cpuMsPerReq: Number((cpu / requests).toFixed(4)),
    loopMaxMs: options.loopStats ? await loopMax(child) : undefined,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

/** `load` after WARM_UP_SECONDS of the same load, unmeasured. */
async function warmedLoad(
  url: string,
  child: ChildProcess,
  options: { headers: Record<string, string>; loopStats: boolean; pinned?: boolean },
): Promise<Load> {
  await load(url, child, { ...options, seconds: WARM_UP_SECONDS });
  return load(url, child, options);
}

// One request with a plain node:http client (undici's fetch adds tens of ms of its own to a
// first request with a 2 MB body); the time runs until the last byte has arrived.
function timed(
  url: string,
  key: string,
): Promise<{ ms: number; bytes: Buffer; etag: string; rawHeaders: string[] }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { headers: { "X-API-KEY": key, "Accept-Encoding": "identity" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const bytes = Buffer.concat(chunks);
        if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode} ${bytes.toString()}`));
        else {
          const etag = String(res.headers.etag ?? "");
          resolve({ ms: performance.now() - started, bytes, etag, rawHeaders: res.rawHeaders });
        }
      });
    });
    req.on("error", reject);
    req.end();
  });
}

function storeWithYears(
  name: string,
  firstDay: string,
  days: number,
): { dir: string; key: string; ingestMs: number } {
  const dir = join(work, name);
  const csv = join(work, `${name}.csv`);
  writeFileSync(csv, generateSampleExport({ firstDay, days, seed: 7 }));
  const started = performance.now();
  const summary = ingestFiles([csv], { dir });
  const ingestMs = performance.now() - started;
  if (summary.failures.length > 0) throw new Error(summary.failures[0]!.message);
  const unlimited = { normalized_data: 1e9, features: 1e9, metadata: 1e9 };
  const { key } = createKey(dir, { name: "bench", account: "bench", limits: unlimited });
  return { dir, key, ingestMs };
}

async function startRedis(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", work],
    {
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  await new Promise<void>((resolve) => {
    let seen = "";
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes("Ready to accept connections")) resolve();
    });
  });
  return { child, url: `redis://127.0.0.1:${port}` };
}

/**
 * Scale-out on this machine: (a) and a 304 against one process with its own limiter, one process
 * with the Redis limiter (the limiter's cost: the server's and redis-server's CPU per request),
 * and WORKERS=2 on Redis. The load generator shares the two cores with the workers and Redis, so
 * WORKERS=2 cannot show two cores' worth here; CPU per request is the figure that carries over.
 */
async function scale(store: { dir: string; key: string }): Promise<void> {
  const A = "/api/v1/grid/system-state?start=2025-06-01T00:00:00Z&end=2025-07-01T00:00:00Z";
  const redis = await startRedis();
  const headers = { "X-API-KEY": store.key };
  const setups: [string, Record<string, string>][] = [
    ["one_process_local_limiter", {}],
    ["one_process_redis_limiter", { REDIS_URL: redis.url }],
    ["workers_2_redis", { REDIS_URL: redis.url, WORKERS: "2" }],
  ];
  const results: Record<string, unknown> = {};
  for (const [name, env] of setups) {
    const service = await startService(store.dir, env);
    const first = await timed(service.url + A, store.key);
    for (const [scenario, extra] of [
      ["a_30d_hourly", {}],
      ["d_304", { "If-None-Match": first.etag }],
    ] as const) {
      log(`Scale ${name} ${scenario}: ${CONNECTIONS} connections for ${DURATION} s…`);
      const all = { ...headers, ...extra };
      await load(service.url + A, service.child, {
        headers: all,
        seconds: WARM_UP_SECONDS,
        loopStats: false,
      });
      const redisBefore = cpuMs(redis.child.pid!);
      const r = await load(service.url + A, service.child, { headers: all, loopStats: false });
      const requests = r.reqPerSec * DURATION;
      const redisUsPerReq = Math.round(((cpuMs(redis.child.pid!) - redisBefore) / requests) * 1000);
      results[`${name}.${scenario}`] = { ...r, redisUsPerReq };
      log(
        `  ${r.reqPerSec} req/s, p99 ${r.p99Ms} ms, ${Math.round(r.cpuMsPerReq * 1000)} µs server CPU/req, ` +
          `${redisUsPerReq} µs redis-server CPU/req, non-2xx ${r.non2xx}`,
      );
    }
    await stop(service.child);
  }
  await stop(redis.child);
  figures.scale = results;
}

/** The medians of a run of alternating rounds of (a) on the service, the Fastify peer and the bare server, on one Node. */
interface Alternating {
  rounds: number;
  /** The service's CPU per request over the bare server's, and over the peer's. */
  cpu_per_request: number;
  cpu_per_request_to_peer: number;
  peer_cpu_per_request: number;
  throughput: number;
  p99: number;
  cpu_per_request_range: number[];
  service_us_median: number;
  peer_us_median: number;
  bare_us_median: number;
  loop_max_ms: number;
  bare_loop_max_ms: number;
  seconds_each: number;
  pinned: boolean;
}

/** The Node binaries the rounds run on: this one, and Node 24 when `make bench` fetched it (BENCH_NODE24). */
const NODES = [process.execPath, ...(process.env.BENCH_NODE24 ? [process.env.BENCH_NODE24] : [])];
const nodeVersion = (node: string) => execFileSync(node, ["--version"], { encoding: "utf8" }).trim();

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return Number((sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2).toFixed(3));
}

/**
 * (a) on the service, the Fastify peer and the bare server, all on `node` and warm, in turn,
 * PAIRS times for PAIR_SECONDS each: the host's speed drifts by a third within a minute on this
 * VM, so a round's sides are taken seconds apart, in a rotating order, and the median of many
 * rounds is the figure compared with the targets (docs/performance.md).
 */
async function alternatingRounds(
  node: string,
  store: { dir: string; key: string },
  path: string,
  bodyFile: string,
): Promise<Alternating> {
  const servers = {
    service: await startService(store.dir, {}, true, node),
    peer: await startPeer(store.dir, bodyFile, node),
    bare: await startBaseline(bodyFile, undefined, node),
  };
  const names = ["service", "peer", "bare"] as const;
  const side = { headers: { "X-API-KEY": store.key }, seconds: PAIR_SECONDS, pinned: true, loopStats: true };
  for (const name of names) {
    const { url, child } = servers[name];
    await load(url + path, child, {
      ...side,
      seconds: name === "service" ? PAIR_WARM_UP_SECONDS : WARM_UP_SECONDS,
    });
  }
  const rounds: Record<(typeof names)[number], Load>[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const round = {} as Record<(typeof names)[number], Load>;
    // Which side goes first rotates, so that a drift within a round favours none.
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length]!;
      round[name] = await load(servers[name].url + path, servers[name].child, side);
    }
    rounds.push(round);
    const us = (l: Load) => Math.round(l.cpuMsPerReq * 1000);
    log(
      `  round ${i + 1}: service ${us(round.service)} µs, Fastify ${us(round.peer)} µs, bare ${us(round.bare)} µs CPU/req; ` +
        `loop max ${round.service.loopMaxMs ?? "?"} / ${round.peer.loopMaxMs ?? "?"} / ${round.bare.loopMaxMs ?? "?"} ms`,
    );
  }
  for (const name of names) await stop(servers[name].child);
  const cpus = rounds.map((r) => r.service.cpuMsPerReq / r.bare.cpuMsPerReq);
  return {
    rounds: rounds.length,
    cpu_per_request: median(cpus),
    cpu_per_request_to_peer: median(rounds.map((r) => r.service.cpuMsPerReq / r.peer.cpuMsPerReq)),
    peer_cpu_per_request: median(rounds.map((r) => r.peer.cpuMsPerReq / r.bare.cpuMsPerReq)),
    throughput: median(rounds.map((r) => r.service.reqPerSec / r.bare.reqPerSec)),
    p99: median(rounds.map((r) => r.service.p99Ms / r.bare.p99Ms)),
    cpu_per_request_range: [Math.min(...cpus), Math.max(...cpus)].map((x) => Number(x.toFixed(3))),
    service_us_median: median(rounds.map((r) => r.service.cpuMsPerReq * 1000)),
    peer_us_median: median(rounds.map((r) => r.peer.cpuMsPerReq * 1000)),
    bare_us_median: median(rounds.map((r) => r.bare.cpuMsPerReq * 1000)),
    loop_max_ms: Math.max(...rounds.map((r) => r.service.loopMaxMs ?? NaN)),
    bare_loop_max_ms: Math.max(...rounds.map((r) => r.bare.loopMaxMs ?? NaN)),
    seconds_each: PAIR_SECONDS,
    pinned: PIN,
  };
}

/**
 * What counting for Prometheus costs: (a) on the service without METRICS_PORT and on one with it,
 * both warm, in turn (ABBA), METRICS_PAIRS times; the median of the CPU-per-request ratios.
 */
async function metricsCost(store: { dir: string; key: string }, path: string) {
  const plain = await startService(store.dir, {}, true);
  const counted = await startService(store.dir, { METRICS_PORT: String(await freePort()) }, true);
  const side = { headers: { "X-API-KEY": store.key }, seconds: PAIR_SECONDS, pinned: true, loopStats: false };
  for (const s of [plain, counted]) await load(s.url + path, s.child, { ...side, seconds: WARM_UP_SECONDS });
  const ratios: number[] = [];
  const us: [number, number][] = [];
  for (let i = 1; i <= METRICS_PAIRS; i++) {
    const run = (s: typeof plain) => load(s.url + path, s.child, side);
    // Which goes first alternates (ABBA), so that a drift within a pair favours neither.
    let without: Load, c: Load;
    if (i % 2 === 1) {
      without = await run(plain);
      c = await run(counted);
    } else {
      c = await run(counted);
      without = await run(plain);
    }
    ratios.push(c.cpuMsPerReq / without.cpuMsPerReq);
    us.push([without.cpuMsPerReq * 1000, c.cpuMsPerReq * 1000]);
    log(
      `  pair ${i}: without ${Math.round(without.cpuMsPerReq * 1000)} µs, with ${Math.round(c.cpuMsPerReq * 1000)} µs CPU/req`,
    );
  }
  await stop(plain.child);
  await stop(counted.child);
  return {
    pairs: METRICS_PAIRS,
    cpu_per_request_with_to_without: median(ratios),
    us_without_median: median(us.map((u) => u[0])),
    us_with_median: median(us.map((u) => u[1])),
  };
}

/** The rounds' medians, one row per Node, side by side. */
function roundsTable(byNode: Record<string, Alternating>): string[] {
  const rows = [
    [
      "Node",
      "service / bare",
      "(range)",
      "service / Fastify",
      "Fastify / bare",
      "µs service / Fastify / bare",
      "throughput",
      "p99",
    ],
    ...Object.entries(byNode).map(([version, a]) => [
      version,
      String(a.cpu_per_request),
      a.cpu_per_request_range.join("-"),
      String(a.cpu_per_request_to_peer),
      String(a.peer_cpu_per_request),
      `${a.service_us_median} / ${a.peer_us_median} / ${a.bare_us_median}`,
      String(a.throughput),
      String(a.p99),
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => "  " + r.map((c, i) => c.padEnd(widths[i]!)).join("  "));
}

const figures: Record<string, unknown> = {};
const summary: string[] = [];
try {
  log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  figures.machine = { cpus: cpus().length, model: cpus()[0]?.model, node: process.version };
  figures.service_flags = SERVICE_FLAGS.join(" ");
  log(`Service flags: ${SERVICE_FLAGS.join(" ") || "(none: run through make bench for the serve flags)"}`);
  log(PIN ? "Load: servers on CPU 0, wrk on CPU 1 (taskset)" : "Load: servers and wrk unpinned");
  figures.pinned = PIN;

  if (PARTS.has("ingest")) {
    log("Ingest: 5 years of hourly export rows into an empty store…");
    const five = storeWithYears("five-years", "2020-01-01", 1827);
    log(`  ${Math.round(five.ingestMs)} ms`);
    figures.ingest_5y_ms = Math.round(five.ingestMs);
    summary.push(`ingest of 5 years hourly      ${Math.round(five.ingestMs)} ms   (target ≤ 3000 ms)`);
  }

  const A = "/api/v1/grid/system-state?start=2025-06-01T00:00:00Z&end=2025-07-01T00:00:00Z";
  const B = "/api/v1/grid/system-state?start=2025-01-01T00:00:00Z&end=2026-01-01T00:00:00Z";
  const C = "/api/v1/generation/mix?start=2023-01-01&end=2026-01-01&interval=1d";
  const three =
    PARTS.has("load") || PARTS.has("mixed") || PARTS.has("cold") || PARTS.has("scale")
      ? storeWithYears("three-years", "2023-01-01", 1096)
      : undefined;

  if (PARTS.has("load")) {
    const service = await startService(three!.dir, {}, true);
    const pinned = true;
    const { key: limited } = createKey(three!.dir, {
      name: "limited",
      account: "bench",
      limits: { normalized_data: 1 },
    });
    const key = { "X-API-KEY": three!.key };
    const first = await timed(service.url + A, three!.key);
    writeFileSync(join(work, "a.json"), first.bytes);
    const scenarios: [string, string, Record<string, string>][] = [
      ["a_30d_hourly", A, key],
      ["b_366d_hourly", B, key],
      ["b_366d_hourly_br", B, { ...key, "Accept-Encoding": "br" }],
      ["c_3y_daily_mix", C, key],
      ["d_304_if_none_match", A, { ...key, "If-None-Match": first.etag }],
      ["e_429_throttled", A, { "X-API-KEY": limited }],
    ];
    const results: Record<string, Load & { peakRssMb: number }> = {};
    for (const [name, path, headers] of scenarios) {
      log(`Load ${name}: ${CONNECTIONS} connections for ${DURATION} s…`);
      const r = await warmedLoad(service.url + path, service.child, { headers, loopStats: true, pinned });
      results[name] = { ...r, peakRssMb: Math.round(rssKb(service.child.pid!, "VmHWM") / 1024) };
      log(
        `  ${r.reqPerSec} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, max ${r.maxMs} ms, ` +
          `${(r.cpuMsPerReq * 1000).toFixed(0)} µs CPU/req, event loop max ${r.loopMaxMs ?? "?"} ms`,
      );
    }
    await stop(service.child);

    log("Baseline: bare node:http sending (a)'s body from memory…");
    const base = await baselineLoad(join(work, "a.json"), undefined, A, key);
    // The same, with the service's whole head for (a) (Date and the connection's own headers
    // excepted, which node:http writes itself): what writing those headers costs through node:http.
    log("Baseline with (a)'s head: bare node:http sending (a)'s headers and body…");
    const connectionOwn = new Set(["date", "connection", "keep-alive"]);
    const ownHead: string[] = [];
    for (let i = 0; i < first.rawHeaders.length; i += 2) {
      const [name, value] = [first.rawHeaders[i]!, first.rawHeaders[i + 1]!];
      if (!connectionOwn.has(name.toLowerCase())) ownHead.push(name, value);
    }
    const sameHead = await baselineLoad(join(work, "a.json"), ownHead, A, key);

    const row = (n: string, r: Load, rss: number | string) => [
      n,
      r.reqPerSec,
      r.p50Ms,
      r.p99Ms,
      r.maxMs,
      Math.round(r.cpuMsPerReq * 1000),
      r.loopMaxMs ?? "?",
      rss,
    ];
    const rows = [
      ["scenario", "req/s", "p50 ms", "p99 ms", "max ms", "µs CPU/req", "loop max ms", "peak RSS MB"],
      ...Object.entries(results).map(([n, r]) => row(n, r, r.peakRssMb)),
      row("baseline (bare node:http, a's body)", base, "-"),
      row("baseline with a's whole head", sameHead, "-"),
    ].map((r) => r.map(String));
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    process.stdout.write(
      rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ")).join("\n") + "\n\n",
    );
    const a = results.a_30d_hourly!;
    const ratios = {
      throughput: Number((a.reqPerSec / base.reqPerSec).toFixed(3)),
      cpu_per_request: Number((a.cpuMsPerReq / base.cpuMsPerReq).toFixed(3)),
      p99: Number((a.p99Ms / base.p99Ms).toFixed(3)),
      d_304_cpu_per_request: Number((results.d_304_if_none_match!.cpuMsPerReq / base.cpuMsPerReq).toFixed(3)),
      e_429_cpu_per_request: Number((results.e_429_throttled!.cpuMsPerReq / base.cpuMsPerReq).toFixed(3)),
    };
    // Against the baseline that writes the same head: the service's own work, headers aside.
    const sameHeadRatios = {
      throughput: Number((a.reqPerSec / sameHead.reqPerSec).toFixed(3)),
      cpu_per_request: Number((a.cpuMsPerReq / sameHead.cpuMsPerReq).toFixed(3)),
      p99: Number((a.p99Ms / sameHead.p99Ms).toFixed(3)),
    };
    Object.assign(figures, {
      client: "wrk -t1",
      connections: CONNECTIONS,
      duration_s: DURATION,
      scenarios: results,
      baseline: base,
      baseline_same_head: sameHead,
      ratios_a_to_baseline: ratios,
      ratios_a_to_baseline_same_head: sameHeadRatios,
    });
    summary.push(`(a) throughput / baseline     ${ratios.throughput}   (target ≥ 0.75)`);
    summary.push(`(a) CPU per request / baseline ${ratios.cpu_per_request}   (target ≤ 1.6)`);
    summary.push(
      `(a) p99 / baseline            ${ratios.p99}   (target ≤ 1.5); loop max ${a.loopMaxMs ?? "?"} ms (target ≤ 20)`,
    );
    summary.push(
      `(a) against the baseline with (a)'s whole head: throughput ${sameHeadRatios.throughput}, ` +
        `CPU per request ${sameHeadRatios.cpu_per_request}, p99 ${sameHeadRatios.p99}`,
    );
    if (PAIRS > 0) {
      const byNode: Record<string, Alternating> = {};
      for (const node of NODES) {
        log(
          `Rounds on Node ${nodeVersion(node)}: (a) on the service, the Fastify peer and the bare server in turn…`,
        );
        byNode[nodeVersion(node)] = await alternatingRounds(node, three!, A, join(work, "a.json"));
      }
      figures.ratios_a_alternating = byNode;
      summary.push(
        `(a) CPU per request on the same Node, ${PAIRS} rotating rounds of ${PAIR_SECONDS} s, median (targets: service / bare ≤ 1.6, service / Fastify ≤ 1):`,
        ...roundsTable(byNode),
      );
    }
  }

  if (PARTS.has("load") && METRICS_PAIRS > 0) {
    log("Metrics: (a) without and with METRICS_PORT, in turn…");
    const cost = await metricsCost(
      three!,
      "/api/v1/grid/system-state?start=2025-06-01T00:00:00Z&end=2025-07-01T00:00:00Z",
    );
    figures.metrics_cost = cost;
    summary.push(
      `(a) with METRICS_PORT against without, ${cost.pairs} alternating pairs, median CPU per request ${cost.cpu_per_request_with_to_without} (${cost.us_with_median} against ${cost.us_without_median} µs)`,
    );
  }

  if (PARTS.has("mixed")) {
    log(
      "Mixed load: /healthz and a cached 30-day range while 30 uncached year-long grid-stress requests run…",
    );
    const mixed = await startService(three!.dir);
    const now = await mixedRound(mixed.url, three!.key);
    const past = await mixedRound(mixed.url, three!.key, new Date().toISOString());
    await stop(mixed.child);
    figures.mixed_load = { now, as_of: past };
    for (const [name, round] of [
      ["", now],
      [" with as_of", past],
    ] as const) {
      summary.push(
        `mixed load${name}: p99 /healthz ${round.healthz.p99_ms} ms, cached 30 days ${round.cached_30d.p99_ms} ms ` +
          `(max ${round.healthz.max_ms} / ${round.cached_30d.max_ms} ms; target p99 ≤ 50 ms), ` +
          `while ${round.heavy_requests} uncached years took ${round.heavy_total_s} s`,
      );
    }
  }

  if (PARTS.has("scale")) await scale(three ?? storeWithYears("three-years", "2023-01-01", 1096));

  if (PARTS.has("cold")) {
    log("Cold: the first request for 366 days hourly after a start…");
    const cold = await startService(three!.dir);
    const first = await timed(cold.url + B, three!.key);
    const second = await timed(cold.url + B, three!.key);
    await stop(cold.child);
    log(`  first ${first.ms.toFixed(1)} ms, then ${second.ms.toFixed(1)} ms`);
    figures.cold_first_366d_hourly_ms = Number(first.ms.toFixed(1));
    figures.warm_second_366d_hourly_ms = Number(second.ms.toFixed(1));
    summary.push(`(d) cold first 366-day 1h     ${first.ms.toFixed(1)} ms   (target ≤ 150 ms)`);
  }

  const ten =
    PARTS.has("sweep") || PARTS.has("history") ? storeWithYears("ten-years", "2016-01-01", 3653) : undefined;

  if (PARTS.has("history")) {
    log("Whole histories: 10 years hourly as CSV, then as Parquet, from a 10-year store…");
    const server = await startService(ten!.dir);
    const csv = await measureDownload(server.url, HISTORY_PATHS.csv, ten!.key, server.child.pid!);
    const parquet = await measureDownload(server.url, HISTORY_PATHS.parquet, ten!.key, server.child.pid!);
    await stop(server.child);
    figures.history_10y = { csv, parquet, parquet_to_csv: Number((parquet.bytes / csv.bytes).toFixed(3)) };
    for (const [name, f] of [
      ["CSV", csv],
      ["Parquet", parquet],
    ] as const) {
      const mb = (f.bytes / 2 ** 20).toFixed(1);
      log(`  ${name}: ${f.ms} ms, ${mb} MB, RSS idle ${f.idle_rss_mb} MB, peak ${f.peak_rss_mb} MB`);
      summary.push(
        `10-year 1h ${name.padEnd(7)}         ${f.ms} ms, ${mb} MB, peak RSS +${f.peak_rss_mb - f.idle_rss_mb} MB over idle   (target ≤ +64 MB)`,
      );
    }
    summary.push(`Parquet size / CSV size       ${(parquet.bytes / csv.bytes).toFixed(3)}`);
  }

  if (PARTS.has("sweep")) {
    log("Memory: a sweep of 1,000 random ranges over 10 years of data…");
    const sweep = await startService(ten!.dir);
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const startMs = Date.parse("2016-01-01T00:00:00Z");
    const hours = 3653 * 24;
    const paths = ["/api/v1/grid/system-state", "/api/v1/generation/mix", "/api/v1/features/grid-stress"];
    for (let i = 0; i < 1000; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          const daily = random() < 0.3;
          const days = daily ? 1 + Math.floor(random() * 3000) : 1 + Math.floor(random() * 366);
          const from = startMs + Math.floor(random() * hours) * 3_600_000;
          const to = from + days * 86_400_000;
          const path = paths[Math.floor(random() * paths.length)]!;
          const q = `start=${new Date(from).toISOString()}&end=${new Date(to).toISOString()}&interval=${daily ? "1d" : "1h"}`;
          await timed(`${sweep.url}${path}?${q}`, ten!.key);
        }),
      );
    }
    const sweepRss = Math.round(rssKb(sweep.child.pid!, "VmRSS") / 1024);
    const sweepPeak = Math.round(rssKb(sweep.child.pid!, "VmHWM") / 1024);
    await stop(sweep.child);
    log(`  RSS after ${sweepRss} MB, peak ${sweepPeak} MB`);
    figures.sweep_rss_mb = sweepRss;
    figures.sweep_peak_rss_mb = sweepPeak;
    summary.push(`RSS after 1,000-range sweep   ${sweepRss} MB (peak ${sweepPeak} MB)   (target ≤ 200 MB)`);
  }

  process.stdout.write(summary.join("\n") + "\n");
  process.stdout.write(JSON.stringify(figures) + "\n");
} finally {
  rmSync(work, { recursive: true, force: true });
}
