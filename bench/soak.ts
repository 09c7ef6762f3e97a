/**
 * `npm run soak`: drives the real server on loopback for SOAK_SECONDS (60) with SOAK_CONNECTIONS
 * (200) connections and 20 keys across every endpoint, while re-ingesting every 10 s and revoking
 * a key every 5 s. Reports every status count (expected: only 200, 304, 401, 429), p50/p99, how
 * long each revoked key took to be refused, and the server's RSS at start, end and peak. It stops
 * by itself and sends traffic to 127.0.0.1 only. A script, not a test: it prints, it never fails.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { createKey, revokeKey } from "../src/keys/key-admin.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";

const ROOT = join(import.meta.dirname, "..");
const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 200);
const FLAGS = (process.env.GDS_NODE_FLAGS ?? "--max-old-space-size=160 --max-semi-space-size=4")
  .split(" ")
  .filter(Boolean);
const work = mkdtempSync(join(tmpdir(), "gds-soak-"));
const log = (text: string) => process.stderr.write(text + "\n");

const port = await new Promise<number>((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});
const sample = (seed: number) => generateSampleExport({ firstDay: "2025-01-01", days: 366, seed });
writeFileSync(join(work, "a.csv"), sample(1));
writeFileSync(join(work, "b.csv"), sample(2));
ingestFiles([join(work, "a.csv")], { dir: work });
// Half the keys unlimited, half at the default limits, so 429s happen as they would.
const keys = Array.from({ length: 20 }, (_, i) =>
  createKey(work, {
    name: `soak ${i}`,
    account: "soak",
    limits: i % 2 === 0 ? { normalized_data: 1e9, features: 1e9, metadata: 1e9 } : {},
  }),
);
const server = spawn(process.execPath, [...FLAGS, "--import", "tsx", "src/main.ts"], {
  cwd: ROOT,
  // Every connection comes from 127.0.0.1 here: lift the per-address cap above the load.
  env: {
    ...process.env,
    DATA_DIR: work,
    PORT: String(port),
    HOST: "127.0.0.1",
    MAX_CONNECTIONS_PER_ADDRESS: String(CONNECTIONS * 2),
  },
  stdio: ["ignore", "ignore", "pipe"],
});
await new Promise<void>((resolve) =>
  server.stderr.on("data", (d) => String(d).includes("listening") && resolve()),
);
const rss = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))![1]) / 1024;

const PATHS = [
  "/api/v1/grid/system-state",
  "/api/v1/generation/mix",
  "/api/v1/features/grid-stress",
  "/api/v1/datasets",
  "/healthz",
];
const statuses = new Map<number | string, number>();
const latencies: number[] = [];
const revokedAt = new Map<string, number>();
const refusedAfter = new Map<string, number>();
const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
const deadline = Date.now() + SECONDS * 1000;
const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!;

function once(): Promise<void> {
  const { key } = pick(keys);
  const path = pick(PATHS);
  const day = 1 + Math.floor(Math.random() * 300);
  const start = new Date(Date.UTC(2025, 0, day)).toISOString().slice(0, 10);
  const end = new Date(Date.UTC(2025, 0, day + 1 + Math.floor(Math.random() * 30)))
    .toISOString()
    .slice(0, 10);
  const query =
    path.startsWith("/api/v1/datasets") || path === "/healthz" ? "" : `?start=${start}&end=${end}`;
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      { host: "127.0.0.1", port, path: path + query, agent, headers: { "X-API-KEY": key } },
      (res) => {
        res.resume();
        res.on("end", () => {
          latencies.push(performance.now() - started);
          statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
          const at = revokedAt.get(key);
          if (res.statusCode === 401 && at !== undefined && !refusedAfter.has(key))
            refusedAfter.set(key, Date.now() - at);
          resolve();
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      statuses.set(error.code ?? "error", (statuses.get(error.code ?? "error") ?? 0) + 1);
      resolve();
    });
    req.end();
  });
}

const rssStart = rss();
let rssPeak = rssStart;
// RSS a quarter of the way in, once the caches have filled, against the end: is it flat?
let rssWarm = NaN;
const sampler = setInterval(() => {
  const now = rss();
  rssPeak = Math.max(rssPeak, now);
  if (Number.isNaN(rssWarm) && Date.now() > deadline - SECONDS * 750) rssWarm = now;
}, 500);
let ingests = 0;
const ingester = setInterval(() => {
  ingests++;
  spawnSync(
    process.execPath,
    ["--import", "tsx", "scripts/ingest.ts", join(work, ingests % 2 ? "b.csv" : "a.csv")],
    {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: work },
    },
  );
}, 10_000);
let revoked = 0;
const revoker = setInterval(() => {
  const { key, record } = keys[revoked++ % keys.length]!;
  if (revokedAt.has(key)) return;
  revokeKey(work, record.id);
  revokedAt.set(key, Date.now());
}, 5_000);

log(
  `Soak: ${CONNECTIONS} connections, ${keys.length} keys, ${SECONDS} s, re-ingest every 10 s, a revocation every 5 s`,
);
await Promise.all(
  Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < deadline) await once();
  }),
);
clearInterval(sampler);
clearInterval(ingester);
clearInterval(revoker);
const rssEnd = rss();
server.kill("SIGTERM");
await new Promise((resolve) => server.on("exit", resolve));
agent.destroy();
rmSync(work, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
const unexpected = [...statuses.keys()].filter((s) => ![200, 304, 401, 429].includes(s as number));
const refusals = [...refusedAfter.values()];
const result = {
  seconds: SECONDS,
  connections: CONNECTIONS,
  requests: latencies.length,
  statuses: Object.fromEntries(statuses),
  unexpected_statuses: unexpected,
  p50_ms: Number(q(0.5).toFixed(1)),
  p99_ms: Number(q(0.99).toFixed(1)),
  ingests,
  revoked: revokedAt.size,
  revoked_refused: refusals.length,
  revoked_refused_within_ms_max: refusals.length ? Math.max(...refusals) : null,
  rss_mb: {
    start: Math.round(rssStart),
    after_quarter: Math.round(rssWarm),
    end: Math.round(rssEnd),
    peak: Math.round(rssPeak),
  },
};
log(
  `statuses: ${JSON.stringify(result.statuses)}${unexpected.length ? `  UNEXPECTED: ${unexpected.join(", ")}` : ""}`,
);
log(`${result.requests} requests, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms; ${ingests} re-ingests`);
log(
  `revoked ${result.revoked} keys; ${result.revoked_refused} seen refused, the slowest after ${result.revoked_refused_within_ms_max} ms`,
);
log(
  `server RSS: start ${result.rss_mb.start} MB, a quarter in ${result.rss_mb.after_quarter} MB, end ${result.rss_mb.end} MB, peak ${result.rss_mb.peak} MB`,
);
process.stdout.write(JSON.stringify(result) + "\n");
