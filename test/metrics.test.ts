/**
 * Prometheus metrics on METRICS_PORT: a real server process, a known mix of requests, and the
 * scrape parsed by a parser this project does not write (the Python client's, Debian's
 * python3-prometheus-client, which make test installs), its counts checked against the mix.
 */
import { type Refusal, writePullState } from "../src/pull/pull-state.ts";
import { enqueue } from "../src/webhooks/outbox.ts";
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createKey, revokeKey } from "../src/keys/key-admin.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, metricsPortOf, skipUnless, startServerProcess, tempDir, subscribe } from "./helpers.ts";
import { REDIS_SKIP, startRedis } from "./redis-helpers.ts";

const ROOT = join(import.meta.dirname, "..");
const PYTHON = "/usr/bin/python3";
const SKIP = skipUnless(
  spawnSync(PYTHON, ["-c", "import prometheus_client.parser"], { stdio: "ignore" }).status === 0,
  "the Python Prometheus parser is missing: apt-get install -y python3-prometheus-client (make test does this as root)",
);
// Prometheus' promtool: on the PATH, or unpacked into .cache/ by `make promtool`.
const PROMTOOL = [join(ROOT, ".cache", "prometheus", "usr", "bin", "promtool"), "promtool"].find(
  (p) => spawnSync(p, ["--version"], { stdio: "ignore" }).status === 0,
);
const PROMTOOL_SKIP = skipUnless(
  PROMTOOL !== undefined,
  "promtool is missing: make promtool fetches it (or apt-get install -y prometheus)",
);

/** promtool's run, with its output; a missing promtool fails (only under CI can it be missing here). */
function promtool(args: string[], input?: string): { status: number | null; out: string } {
  assert.ok(PROMTOOL, "promtool is missing: make promtool fetches it (or apt-get install -y prometheus)");
  const run = spawnSync(PROMTOOL, args, { cwd: ROOT, input, encoding: "utf8" });
  return { status: run.status, out: run.stdout + run.stderr };
}

/** Every sample of an exposition, as Prometheus' own Python client parses it. */
function parse(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const script = [
    "import json, sys",
    "from prometheus_client.parser import text_string_to_metric_families",
    "out = [{'name': s.name, 'labels': s.labels, 'value': s.value} for f in text_string_to_metric_families(sys.stdin.read()) for s in f.samples]",
    "print(json.dumps(out))",
  ].join("\n");
  const run = spawnSync(PYTHON, ["-c", script], { input: text, encoding: "utf8" });
  assert.equal(run.status, 0, `the exposition does not parse: ${run.stderr}`);
  return JSON.parse(run.stdout) as { name: string; labels: Record<string, string>; value: number }[];
}

test(
  "metrics on their own loopback port count a known mix of requests, and parse with Prometheus' parser",
  { skip: SKIP },
  async (t) => {
    const dir = tempDir(t);
    ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-06-01", days: 5 }) });
    const unlimited = { normalized_data: 1_000_000, features: 1_000_000, metadata: 1_000_000 };
    const { key } = createKey(dir, { name: "ok", account: "desk", limits: unlimited });
    const { key: limited } = createKey(dir, {
      name: "limited",
      account: "desk",
      limits: { normalized_data: 1 },
    });
    const { key: revoked, record } = createKey(dir, { name: "old", account: "desk" });
    revokeKey(dir, record.id);
    // The pull refused a file for its changed columns.
    const refused = { at: "2025-06-05T04:09:00.000Z", kind: "header", reason: "its columns changed" };
    writePullState(dir, { format: 2, files: { "Station_Build_Up.csv": { refused: refused as Refusal } } });
    // A webhook the server cannot send (plain http is refused by default): pending in the outbox.
    await subscribe(dir, {
      account: "desk",
      url: "http://127.0.0.1:9/hook",
      events: ["webhook.test"],
    });
    enqueue(dir, { type: "webhook.test", data: {} });
    // Port 0: the listener says which port it got (a port chosen here could be taken meanwhile).
    const started = await startServerProcess(t, dir, {
      env: { METRICS_PORT: "0" },
      ready: (printed) => printed.includes("Metrics at"),
    });
    const { port } = started;
    const stderr = started.stderr();
    const metricsPort = metricsPortOf(stderr); // on loopback by default
    const api = (path: string, k?: string) =>
      fetch(`http://127.0.0.1:${port}${path}`, { headers: k === undefined ? {} : { "X-API-KEY": k } });
    const DATA = "/api/v1/grid/system-state?start=2025-06-02&end=2025-06-03";
    for (let i = 0; i < 3; i++) assert.equal((await api(DATA, key)).status, 200);
    assert.equal((await api(DATA)).status, 401);
    assert.equal((await api(DATA, "gds_not-a-key")).status, 401);
    assert.equal((await api(DATA, revoked)).status, 401);
    assert.equal((await api(DATA, limited)).status, 200);
    assert.equal((await api(DATA, limited)).status, 429);
    assert.equal((await api(DATA, limited)).status, 429);
    assert.equal((await api("/no/such/path?x=1", key)).status, 404);
    assert.equal((await api("/metrics")).status, 404, "the API's port never serves metrics");

    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(scrape.status, 200);
    const text = await scrape.text();
    const samples = parse(text);
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0);
    const route = "/api/v1/grid/system-state";
    assert.equal(value("gds_http_requests_total", { route, method: "GET", status: "200" }), 4);
    assert.equal(value("gds_http_requests_total", { route, status: "401" }), 3);
    assert.equal(value("gds_http_requests_total", { route, status: "429" }), 2);
    assert.equal(value("gds_http_requests_total", { route: "other", status: "404" }), 2);
    assert.equal(value("gds_http_request_duration_seconds_count", { route }), 9);
    assert.equal(value("gds_auth_failures_total", { reason: "missing" }), 1);
    assert.equal(value("gds_auth_failures_total", { reason: "invalid" }), 1);
    assert.equal(value("gds_auth_failures_total", { reason: "revoked" }), 1);
    assert.equal(value("gds_auth_failures_total", { reason: "disabled" }), 0);
    assert.equal(value("gds_throttled_requests_total", { scope: "normalized_data" }), 2);
    assert.equal(value("gds_store_day_files"), 6);
    assert.equal(
      value("gds_data_newest_hour_timestamp_seconds", { dataset: "grid.system_state" }),
      Date.parse("2025-06-05T21:00:00Z") / 1000,
    );
    assert.equal(value("gds_pull_runs_total", { outcome: "ok" }), 0);
    assert.equal(value("gds_webhook_deliveries", { state: "pending" }), 1);
    assert.equal(value("gds_webhook_deliveries", { state: "delivered" }), 0);
    assert.equal(value("gds_pull_file_refused", { file: "Station_Build_Up.csv", kind: "header" }), 1);
    for (const name of [
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
    ])
      assert.ok(
        samples.some((s) => s.name === name),
        name,
      );
    assert.ok(!samples.some((s) => s.name === "gds_redis_up"), "no Redis metric without REDIS_URL");
    // No label carries a key, a key prefix, a raw path or a query.
    for (const s of samples) {
      for (const v of Object.values(s.labels)) {
        assert.doesNotMatch(v, /gds_|\?|\/no\/such/, `${s.name} ${JSON.stringify(s.labels)}`);
      }
    }
    for (const k of [key, limited, revoked])
      assert.ok(!text.includes(k.slice(0, 8)), "no key prefix anywhere");

    await t.test(
      "promtool's lint finds nothing in the service's own metrics",
      { skip: PROMTOOL_SKIP },
      () => {
        const lint = promtool(["check", "metrics"], text);
        const problems = lint.out.split("\n").filter((line) => line.trim() !== "");
        // prom-client's default Node gauges nodejs_active_{handles,requests,resources}_total carry a
        // counter's suffix: its naming, not ours. Every other line would be a problem of this service.
        const ours = problems.filter((line) => !/^nodejs_active_[a-z]+_total /.test(line));
        assert.deepEqual(ours, [], lint.out);
        assert.ok(lint.status === 0 || problems.length > 0, `promtool failed: ${lint.out}`);
      },
    );
  },
);

test(
  "promtool accepts the scrape snippet and the alert rules, and the rules' unit tests pass",
  { skip: PROMTOOL_SKIP },
  () => {
    const config = promtool(["check", "config", "deploy/prometheus.yml"]);
    assert.equal(config.status, 0, config.out);
    assert.match(config.out, /SUCCESS: 10 rules found/);
    const rules = promtool(["test", "rules", "deploy/gds-alerts.test.yml"]);
    assert.equal(rules.status, 0, rules.out);
    // Every alert has a test that sees it fire.
    const tests = readFileSync(join(ROOT, "deploy", "gds-alerts.test.yml"), "utf8");
    const alerts =
      readFileSync(join(ROOT, "deploy", "gds-alerts.yml"), "utf8").match(/(?<=alert: )\w+/g) ?? [];
    assert.equal(alerts.length, 10);
    for (const alert of alerts)
      assert.match(
        tests,
        new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`),
        `${alert} fires in a test`,
      );
  },
);

test("the alert rules and the scrape snippet name only metrics the service exports", async () => {
  const { createMetrics } = await import("../src/metrics/metrics.ts");
  const { registry } = createMetrics({
    store: { refresh: () => ({ manifest: new Map() }) } as never,
    datasets: [],
    dir: "/nonexistent",
    redisUp: () => true,
    linesLost: () => ({ stdout: 0, stderr: 0 }),
    staleAfterMs: 36 * 3_600_000,
  });
  const exported = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
  const rules = readFileSync(join(ROOT, "deploy", "gds-alerts.yml"), "utf8");
  const named = new Set(rules.match(/gds_[a-z_]+/g) ?? []);
  assert.ok(named.size >= 4);
  for (const name of named) assert.ok(exported.has(name), `${name} is exported`);
  assert.match(readFileSync(join(ROOT, "deploy", "prometheus.yml"), "utf8"), /gds-alerts\.yml/);
});

test(
  "with WORKERS=2 one scrape returns the sum over both workers, and what the store says once",
  { skip: SKIP || REDIS_SKIP },
  async (t) => {
    const redis = await startRedis(t);
    const dir = tempDir(t);
    ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-06-01", days: 5 }) });
    const { key } = createKey(dir, { name: "ok", account: "desk", limits: { normalized_data: 1_000_000 } });
    // The primary and its workers are one process group, killed together when the test ends.
    const { port, stderr } = await startServerProcess(t, dir, {
      env: { WORKERS: "2", REDIS_URL: redis.url, METRICS_PORT: "0" },
      ready: (printed) =>
        (printed.match(/listening on/g) ?? []).length === 2 && printed.includes("Metrics at"),
    });
    const DATA = "/api/v1/grid/system-state?start=2025-06-02&end=2025-06-03";
    // New connections each time, so that the primary hands them to both workers. Ten answered:
    // a Redis command slower than its 100 ms bound (a loaded host) is a documented 503, not one.
    let answered = 0;
    for (let sent = 0; answered < 10; sent++) {
      assert.ok(sent < 40, `only ${answered} of ${sent} requests answered 200`);
      const res = await fetch(`http://127.0.0.1:${port}${DATA}`, {
        headers: { "X-API-KEY": key, Connection: "close" },
      });
      const body = await res.text();
      if (res.status === 503) assert.match(body, /Service temporarily unavailable/);
      else assert.equal(res.status, 200, body);
      if (res.status === 200) answered++;
    }
    const samples = parse(await (await fetch(`http://127.0.0.1:${metricsPortOf(stderr())}/metrics`)).text());
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0);
    assert.equal(value("gds_http_requests_total", { route: "/api/v1/grid/system-state", status: "200" }), 10);
    assert.equal(value("gds_store_day_files"), 6, "the store's days, once, not once per worker");
    assert.equal(value("gds_redis_up"), 1);
  },
);

test("a scrape while the webhook counts cannot be read answers with the rest, and the last counts", async () => {
  const { createMetrics } = await import("../src/metrics/metrics.ts");
  let away = false;
  const { registry } = createMetrics({
    store: { refresh: () => ({ manifest: new Map() }) } as never,
    datasets: [],
    dir: "/nonexistent",
    redisUp: () => !away,
    linesLost: () => ({ stdout: 0, stderr: 0 }),
    staleAfterMs: 36 * 3_600_000,
    webhookCounts: () =>
      away
        ? Promise.reject(new Error("Command timed out"))
        : Promise.resolve({ pending: 3, delivered: 5, failed: 0, gone: 0 }),
  });
  assert.match(await registry.metrics(), /gds_webhook_deliveries\{state="pending"\} 3/);
  away = true;
  const text = await registry.metrics();
  assert.match(text, /gds_webhook_deliveries\{state="pending"\} 3/, "the last counts read");
  assert.match(text, /gds_redis_up 0/);
});
