/** Shared test fixtures: temp stores, CSV builders and a real server on port 0. */
import type { DatasetDefinition } from "../src/datasets/registry.ts";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { createKeyRegistry } from "../src/keys/key-registry.ts";
import { createLimiter, type Limiter } from "../src/limits/limiter.ts";
import type { DocumentStore } from "../src/files/document-store.ts";
import { DEFAULT_LIMITS, SCOPES } from "../src/limits/scopes.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { createChangeGate } from "../src/files/change-gate.ts";
import { createAccountRegistry } from "../src/accounts/account-registry.ts";
import { createSessionStore, type SessionStore } from "../src/accounts/session-store.ts";
import { createRequestCounter, type RequestCounter } from "../src/usage/request-counts.ts";
import { createSubscription } from "../src/webhooks/subscriptions.ts";
import { fileWebhookStores, type WebhookStores } from "../src/webhooks/webhook-stores.ts";

// The processes each test started (`startServerProcess`). A test's after-hooks run in the order
// they were added, and its temp directory is made before the process that writes into it: the
// directory's removal kills them first, or it would race their writes.
const startedBy = new WeakMap<TestContext, ChildProcess[]>();

function killStarted(t: TestContext): void {
  for (const child of startedBy.get(t) ?? []) {
    try {
      process.kill(-child.pid!, "SIGKILL"); // its process group: a primary and its workers
    } catch {
      // already gone
    }
  }
}

/**
 * A test's `skip` for a part it needs (a browser, redis-server, a parser...): false when the part
 * is here, else `why` (what is missing and how to get it). Never a skip under CI=true: there the
 * test runs and fails, so CI cannot pass without the part.
 */
export function skipUnless(present: boolean, why: string): string | false {
  return present || process.env.CI === "true" ? false : why;
}

/** Whether this process can mount a small tmpfs (a full disk on demand): root, with mount(8). */
export const CAN_MOUNT = process.getuid?.() === 0 && spawnSync("mount", ["--version"]).status === 0;
export const NEEDS_MOUNT = "needs root to mount a small tmpfs (run the tests as root)";

/** A tmpfs of `size` (mount(8)'s form: "1m", "1500k") mounted for the test, unmounted after it. */
export function smallDisk(t: TestContext, size: string): string {
  const dir = mkdtempSync(join(tmpdir(), "gds-disk-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
  if (mounted.status !== 0) throw new Error(`mount of a tmpfs failed: ${String(mounted.stderr)}`);
  t.after(() => {
    spawnSync("umount", ["-l", dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Fills the disk under `dir` but for what `leave` bytes hold; returns what frees it. */
export function fillDisk(dir: string, leave = 0): () => void {
  const path = join(dir, "filler");
  spawnSync("dd", ["if=/dev/zero", `of=${path}`, "bs=4k", "count=100000"], { stdio: "ignore" });
  if (leave > 0) truncateSync(path, Math.max(0, statSync(path).size - leave));
  return () => rmSync(path);
}

/** A temp directory removed when the test ends (after the processes the test started are killed). */
export function tempDir(t: TestContext, prefix = "gds-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => {
    killStarted(t);
    // A killed process's last write may still be landing: rm retries a directory that refills.
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  });
  return dir;
}

/** Writes `text` to `name` in `dir` and returns its path. */
export function writeFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

// The stores ingested in this process, by their texts: a test file that makes the same store for
// many tests ingests it once and copies it after (an ingest fsyncs every day file; a copy need not).
const madeStores = new Map<string, { dir: string; summary: ReturnType<typeof ingestFiles> }>();
process.on("exit", () => {
  for (const { dir } of madeStores.values()) rmSync(dir, { recursive: true, force: true });
});

/**
 * Ingests CSV texts (written to temp files in order) into `dataDir`, asserting no failures. Into an
 * empty directory, texts this process has ingested before are copied from that store instead.
 */
export function ingestTexts(dataDir: string, texts: Record<string, string>): ReturnType<typeof ingestFiles> {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return ingestNow(dataDir, texts);
  const hash = createHash("sha256");
  for (const [name, text] of Object.entries(texts)) hash.update(`${name}\0${text}\0`);
  const key = hash.digest("hex");
  let made = madeStores.get(key);
  if (made === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "gds-made-"));
    try {
      made = { dir, summary: ingestNow(dir, texts) };
    } catch (error) {
      rmSync(dir, { recursive: true, force: true }); // texts a test expects refused: nothing kept
      throw error;
    }
    madeStores.set(key, made);
  }
  cpSync(made.dir, dataDir, { recursive: true });
  return structuredClone(made.summary);
}

function ingestNow(dataDir: string, texts: Record<string, string>): ReturnType<typeof ingestFiles> {
  const sources = mkdtempSync(join(tmpdir(), "gds-src-"));
  try {
    const paths = Object.entries(texts).map(([name, text]) => writeFile(sources, name, text));
    const summary = ingestFiles(paths, { dir: dataDir });
    if (summary.failures.length > 0) throw new Error(summary.failures.map((f) => f.message).join("\n"));
    return summary;
  } finally {
    rmSync(sources, { recursive: true, force: true });
  }
}

/** Every file under a directory with its bytes, for byte-identity checks. */
export function snapshotDir(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else out[rel] = readFileSync(join(dir, rel), "utf8");
    }
  };
  if (existsSync(dir)) walk("");
  return out;
}

/** The export header for a subset of columns, in the given order. */
export function exportCsv(
  columns: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): string {
  return (
    [["Date Time Hour Beginning", ...columns].join(","), ...rows.map((r) => r.join(","))].join("\n") + "\n"
  );
}

/** The export's SAST stamp (`2024-01-01 02:00:00 AM`) of a UTC instant: SAST is UTC+02:00. */
export function sast(utcMs: number): string {
  const d = new Date(utcMs + 2 * 3_600_000);
  const h = d.getUTCHours();
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${d.toISOString().slice(0, 10)} ${String(h12).padStart(2, "0")}:00:00 ${h < 12 ? "AM" : "PM"}`;
}

/** A live-format file: `;` delimiter, `,` decimals, CRLF. */
export function liveCsv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cell = (v: string | number) => (typeof v === "number" ? String(v).replace(".", ",") : v);
  return [header.join(";"), ...rows.map((r) => r.map(cell).join(";"))].join("\r\n") + "\r\n";
}

/** A running service on an ephemeral port, closed when the test ends. */
export interface TestServer {
  readonly url: string;
  readonly server: Server;
  readonly logs: Record<string, unknown>[];
  readonly errors: unknown[];
  /** A key with limits high enough never to be throttled in a test. */
  readonly key: string;
  /** A request with `key` in X-API-KEY, unless `init.headers` names its own. */
  get(path: string, init?: RequestInit): Promise<Response>;
  /** A request with exactly the headers given. */
  raw(path: string, init?: RequestInit): Promise<Response>;
  readonly sessions: SessionStore;
  readonly counter: RequestCounter;
}

export interface TestServerOptions {
  readonly cacheDays?: number;
  /** The limiter's clock. */
  readonly now?: () => number;
  /** Default limits per scope. */
  readonly limits?: Record<string, number>;
  /** Whether dashboard cookies carry `Secure`. */
  readonly secureCookies?: boolean;
  /** Origins allowed by CORS. */
  readonly corsOrigins?: ReadonlySet<string>;
  /** Reverse proxies trusted to append to X-Forwarded-For. */
  readonly trustedProxies?: number;
  /** Where the dashboard's webhooks may go. */
  readonly webhookRules?: { allowPrivate: boolean; allowHttp: boolean };
  /** The datasets served, when not the registry's. */
  readonly datasets?: readonly DatasetDefinition[];
  /**
   * The store served, when not `dataDir`'s: a fixture the server only reads (`fixture-stores.ts`),
   * while its keys, accounts and counts are kept in `dataDir`.
   */
  readonly storeDir?: string;
  /**
   * Where the keys, accounts, sessions and counts are kept, when not `dataDir`'s files: Redis's
   * copies, as a VM of several keeps them (`vmsOnRedis`).
   */
  readonly documents?: DocumentStore;
  /** The webhooks' stores, when not `dataDir`'s. */
  readonly webhooks?: WebhookStores;
  /** The limiter, when not one of the server's own (a shared one, as VMs on Redis share). */
  readonly limiter?: Limiter;
}

/** The account of the key `startServer` makes (`server.key`). */
export const TEST_KEY_ACCOUNT = "tests";

/** Starts the real service, keys and limits included, on port 0 over the store at `dataDir`. */
export async function startServer(
  t: TestContext,
  dataDir: string,
  options: TestServerOptions = {},
): Promise<TestServer> {
  // The whole service (about a second of CPU to load under tsx), loaded by the test files that serve.
  const { createService } = await import("../src/service.ts");
  const logs: Record<string, unknown>[] = [];
  const errors: unknown[] = [];
  // As in production: one stat of the directory per request gates the store's and registries' rereads.
  const gate = createChangeGate(dataDir);
  const store =
    options.storeDir === undefined
      ? createReadingStore({ dir: dataDir, cacheDays: options.cacheDays ?? 50, gate })
      : createReadingStore({ dir: options.storeDir, cacheDays: options.cacheDays ?? 50 });
  const unlimited = Object.fromEntries(SCOPES.map((s) => [s, 1_000_000]));
  const { key } = createKey(dataDir, { name: "test", account: TEST_KEY_ACCOUNT, limits: unlimited });
  const onError = (error: unknown) => errors.push(error);
  const { documents } = options;
  const accounts = createAccountRegistry({ dir: dataDir, onError, gate, documents });
  const registry = createKeyRegistry({
    dir: dataDir,
    now: options.now,
    onError,
    isDisabled: (account) => accounts.isDisabled(account),
    gate,
    documents,
  });
  const sessions = createSessionStore({ dir: dataDir, now: options.now, onError, documents });
  const counter = createRequestCounter({ dir: dataDir, now: options.now, onError, documents });
  t.after(() => counter.close());
  const server = createServer(
    createService({
      store,
      datasets: options.datasets,
      registry,
      limiter: options.limiter ?? createLimiter({ now: options.now }),
      limits: { ...DEFAULT_LIMITS, ...options.limits },
      now: options.now,
      log: (entry) => logs.push({ ...entry }),
      logError: onError,
      counter,
      dashboard: {
        dir: dataDir,
        accounts,
        sessions,
        secureCookies: options.secureCookies ?? false,
        trustedProxies: options.trustedProxies,
        webhookRules: options.webhookRules,
        documents,
        webhooks: options.webhooks,
      },
      corsOrigins: options.corsOrigins,
      gate,
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // node:test keeps every test's hooks to the end of the run, and in the suite's shared process
  // that is many files: once closed, the server lets go of the service (its store and caches).
  t.after(() =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }).then(() => server.removeAllListeners("request")),
  );
  // Every test that starts a server checks, at its end, that the key never reached a log line or
  // an error: across the whole run, a key appears in logs as its prefix only.
  t.after(() => {
    const text = JSON.stringify(logs) + errors.map((e) => String((e as Error)?.stack ?? e)).join("\n");
    if (text.includes(key)) throw new Error("The test server's key appears in full in its logs");
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    logs,
    errors,
    key,
    get: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has("x-api-key")) headers.set("X-API-KEY", key);
      return fetch(url + path, { ...init, headers });
    },
    raw: (path, init) => fetch(url + path, init),
    sessions,
    counter,
  };
}

/** Where the real Eskom files are, or undefined (with the reason logged) when absent. */
export const REAL_DATA_DIR = join(import.meta.dirname, "..", "..", "shared", "data", "eskom");
export const REAL_DATA_SKIP = existsSync(REAL_DATA_DIR)
  ? false
  : `real Eskom data not found at ${REAL_DATA_DIR}; these tests need ../shared/data/eskom beside the checkout`;

/** The portal's three live files of February 2023, as a pull downloads them. */
export const LIVE_SNAPSHOT = [
  "Station_Build_Up.csv",
  "System_hourly_actual_and_forecasted_demand.csv",
  "Hourly_Generation.csv",
].map((f) => join(REAL_DATA_DIR, "portal_snapshot_2023-02-21", f));

/** The port a server started with METRICS_PORT=0 says its metrics listener got, on loopback. */
export function metricsPortOf(stderr: string): number {
  const port = /Metrics at http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(stderr)?.[1];
  if (port === undefined) throw new Error(`No metrics listener on loopback in: ${stderr}`);
  return Number(port);
}

// The kernel gives port-0 listeners and outgoing connections their ports from this range only.
const PORT_RANGE = "/proc/sys/net/ipv4/ip_local_port_range";
const EPHEMERAL_LOW = Number(
  /^\d+/.exec(existsSync(PORT_RANGE) ? readFileSync(PORT_RANGE, "utf8") : "")?.[0] ?? 32_768,
);

/**
 * A loopback port free right now, for a program that must be told its port before it listens
 * (redis-server; make serve, which prints its URL first). It lies below the kernel's ephemeral
 * range, so no other test's port-0 server or outgoing connection can take it in the meantime;
 * only another such choice could, out of some 20,000. A program that can listen on port 0 and
 * say which port it got is started so instead.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * Math.max(EPHEMERAL_LOW - 10_000, 1_000));
    const free = await new Promise<boolean>((resolve) => {
      const s = createNetServer()
        .once("error", () => resolve(false))
        .listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/**
 * Two sample exports of the same `days` from 2024-01-01 with different seeds, as files: a store's
 * first ingest, and an update that revises every hour of it.
 */
export function sampleAndUpdate(t: TestContext, days: number): { before: string; update: string } {
  const src = tempDir(t);
  const sample = (seed: number) => generateSampleExport({ firstDay: "2024-01-01", days, seed });
  return { before: writeFile(src, "before.csv", sample(1)), update: writeFile(src, "update.csv", sample(2)) };
}

/**
 * Kills `child` with SIGKILL as soon as `reached()` holds (polled every millisecond), and resolves
 * once it has exited: to `label` if it was killed, or to "after exit" if it ended first.
 */
export async function killWhen(child: ChildProcess, reached: () => boolean, label: string): Promise<string> {
  const when = await new Promise<string>((resolve) => {
    const poll = setInterval(() => {
      if (!reached()) return;
      clearInterval(poll);
      child.kill("SIGKILL");
      resolve(label);
    }, 1);
    child.on("exit", () => {
      clearInterval(poll);
      resolve("after exit");
    });
  });
  if (child.exitCode === null && child.signalCode === null)
    await new Promise((resolve) => child.on("exit", resolve));
  return when;
}

/**
 * `node --import tsx SCRIPT ARGS` from the repository's root, run to its end: how it exited, what it
 * said. It waits for `close`, not `exit`: the child's output may still be in its pipes at `exit`.
 */
export async function runScript(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
) {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: join(import.meta.dirname, ".."),
    env,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, stderr };
}

/**
 * Starts `script` (the server's entry point by default) as its own process on `dir`, on a free
 * port, and resolves once it has said where it listens and `ready` holds for what it printed. The
 * process and any workers it forks are one process group, killed when the test ends; what they
 * print is kept (`stderr`, and `stdout`: the access log).
 */
export async function startServerProcess(
  t: TestContext,
  dir: string,
  options: {
    script?: string;
    env?: Record<string, string>;
    ready?: (stderr: string) => boolean;
    /** A descriptor for its stdout (the access log), rather than a pipe this process reads. */
    stdout?: number;
  } = {},
): Promise<{ child: ChildProcess; port: number; stderr: () => string; stdout: () => string }> {
  const script = options.script ?? "src/main.ts";
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: join(import.meta.dirname, ".."),
    env: { ...process.env, DATA_DIR: dir, PORT: "0", ...options.env },
    stdio: ["ignore", options.stdout ?? "pipe", "pipe"],
    detached: true,
  });
  startedBy.set(t, [...(startedBy.get(t) ?? []), child]);
  t.after(() => killStarted(t));
  let stdout = ""; // the access log
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  let stderr = "";
  const port = await new Promise<number>((resolve, reject) => {
    // A start that hangs fails with what the process said, rather than holding the run open.
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 60 s: ${stderr}`)), 60_000);
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m && (options.ready ?? (() => true))(stderr)) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}): ${stderr}`));
    });
  });
  return { child, port, stderr: () => stderr, stdout: () => stdout };
}

/**
 * Resolves once `reached()` holds (asked every `everyMs`): how a test waits for what another
 * process or the event loop does (a log line, a file, a count). The deadline only turns a hang
 * into a failure naming `what`; it is generous, as a busy machine may be slow.
 */
export async function waitFor(
  reached: () => boolean | Promise<boolean>,
  what: string,
  { everyMs = 10, deadlineMs = 60_000 } = {},
): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  while (!(await reached())) {
    if (performance.now() > deadline) throw new Error(`Waited ${deadlineMs / 1000} s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A webhook subscription in DATA_DIR at `dir`, as the CLI makes one; its secret is returned once. */
export async function subscribe(dir: string, options: Parameters<typeof createSubscription>[2]) {
  const webhooks = fileWebhookStores(dir);
  return createSubscription(webhooks.documents, await webhooks.sealingKeys(), options);
}
