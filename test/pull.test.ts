/**
 * `pull` against a stand-in for the Eskom portal on loopback, serving the real snapshot files from
 * ../shared/data/eskom/portal_snapshot_2023-02-21/. Nothing here reaches the internet.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { pullPortal } from "../src/pull/pull.ts";
import { DEFAULT_PORTAL_FILES } from "../src/pull/portal-urls.ts";
import { lastSuccessfulPull } from "../src/pull/pull-state.ts";
import { REAL_DATA_DIR, skipUnless, snapshotDir, startServer, tempDir } from "./helpers.ts";

const SNAPSHOT = join(REAL_DATA_DIR, "portal_snapshot_2023-02-21");
const SKIP = skipUnless(
  existsSync(SNAPSHOT),
  `the portal snapshot is not at ${SNAPSHOT}; these tests need ../shared/data/eskom beside the checkout`,
);
const ROOT = join(import.meta.dirname, "..");
// 2023-02-21 12:00 SAST, when the snapshot was taken: files live under /2023/02/.
const NOW = Date.parse("2023-02-21T10:00:00Z");
const FAST = { timeoutMs: 2000, attempts: 3, backoffMs: 5, maxBackoffMs: 20 };

type Behaviour = (req: IncomingMessage, res: ServerResponse, body: Buffer) => boolean | void;

/** A portal stand-in: files by path, conditional GETs, and per-file misbehaviour on demand. */
async function portal(t: TestContext, folder = "2023/02") {
  const files = new Map<string, Buffer>(
    DEFAULT_PORTAL_FILES.map((f) => [`/${folder}/${f}`, readFileSync(join(SNAPSHOT, f))]),
  );
  const requests: { path: string; ifNoneMatch?: string; ifModifiedSince?: string }[] = [];
  const behave = new Map<string, Behaviour>();
  const server = createServer((req, res) => {
    const path = new URL(req.url!, "http://x").pathname;
    requests.push({
      path,
      ifNoneMatch: req.headers["if-none-match"],
      ifModifiedSince: req.headers["if-modified-since"],
    });
    const body = files.get(path);
    const file = path.split("/").pop()!;
    if (behave.get(file)?.(req, res, body ?? Buffer.alloc(0))) return;
    if (body === undefined) {
      res
        .writeHead(404, { "Content-Type": "text/html" })
        .end("<html><body>Error 404 - www.eskom.co.za</body></html>");
      return;
    }
    const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { ETag: etag }).end();
      return;
    }
    res.writeHead(200, {
      "Content-Type": "text/csv",
      "Content-Length": body.length,
      ETag: etag,
      "Last-Modified": "Tue, 21 Feb 2023 09:00:00 GMT",
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(
    () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, files, requests, behave, folder };
}

function pull(dir: string, base: string, now = NOW) {
  return pullPortal({ dir, baseUrl: base, files: DEFAULT_PORTAL_FILES, policy: FAST, now: () => now });
}

/** The SAST stamp and a column's value of a live-format row, read straight from the raw CSV. */
function rawValue(file: string, stamp: string, column: string): number {
  const lines = readFileSync(join(SNAPSHOT, file), "utf8").split("\r\n");
  const header = lines[0]!.split(";");
  const row = lines.find((l) => l.startsWith(stamp + ";"))!.split(";");
  return Number(row[header.indexOf(column)]!.replace(",", "."));
}

test("a first pull stores the portal's files: served values equal the raw CSV", { skip: SKIP }, async (t) => {
  const stand = await portal(t);
  const dir = tempDir(t);
  const result = await pull(dir, stand.url);
  assert.equal(result.ok, true, JSON.stringify(result.files));
  const build = result.files.find((f) => f.file === "Station_Build_Up.csv")!;
  assert.equal(build.result, "ingested");
  assert.equal(build.hoursAdded, 144, "the 144 published hours; the 24 blank ones are skipped");
  const renewables = result.files.find((f) => f.file === "Hourly_Generation.csv")!;
  assert.equal(renewables.placeholdersSkipped, 216, "future hours written as zeros");
  assert.ok(lastSuccessfulPull(dir)! >= NOW - 1000);

  const server = await startServer(t, dir);
  // 2023-02-14 00:00 SAST is 2023-02-13 22:00 UTC.
  const res = await server.get("/api/v1/generation/mix?start=2023-02-13T22:00:00Z&end=2023-02-13T23:00:00Z");
  const [record] = ((await res.json()) as { data: Record<string, number>[] }).data;
  assert.equal(
    record!.thermal_mw,
    Math.round(rawValue("Station_Build_Up.csv", "2023-02-14 00:00:00", "Thermal_Generation") * 1000) / 1000,
  );
  assert.equal(
    record!.wind_mw,
    Math.round(rawValue("Hourly_Generation.csv", "2023-02-14 00:00:00", "Wind") * 1000) / 1000,
  );
  const state = await server.get(
    "/api/v1/grid/system-state?start=2023-02-13T22:00:00Z&end=2023-02-13T23:00:00Z",
  );
  const [s] = ((await state.json()) as { data: Record<string, number>[] }).data;
  assert.equal(
    s!.residual_demand_mw,
    Math.round(
      rawValue("System_hourly_actual_and_forecasted_demand.csv", "2023-02-14 00:00:00", "Residual Demand") *
        1000,
    ) / 1000,
  );
});

test(
  "a repeat pull sends the validators, gets 304 for every file, and changes no file",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await pull(dir, stand.url);
    // Every file but the pull's own count of its runs.
    const files = () => {
      const { "pull-runs.json": runs, ...rest } = snapshotDir(dir);
      return { runs, rest };
    };
    const before = files().rest;
    stand.requests.length = 0;
    const again = await pull(dir, stand.url, NOW + 3_600_000);
    assert.equal(again.ok, true);
    assert.deepEqual(
      again.files.map((f) => f.result),
      ["not-modified", "not-modified", "not-modified"],
    );
    assert.ok(stand.requests.every((r) => r.ifNoneMatch !== undefined && r.ifModifiedSince !== undefined));
    assert.deepEqual(files().rest, before, "no file's content changed");
    assert.deepEqual(JSON.parse(files().runs!), { ok: 2, failed: 0 }, "both runs are counted");
    assert.equal(lastSuccessfulPull(dir), NOW + 3_600_000, "the check itself is recorded (by time only)");
  },
);

test(
  "a revised value is served at once with a new ETag, and as_of before it still gives the old one",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await pull(dir, stand.url);
    const server = await startServer(t, dir);
    const path = "/api/v1/grid/system-state?start=2023-02-13T22:00:00Z&end=2023-02-14T00:00:00Z";
    const first = await server.get(path);
    const oldTag = first.headers.get("etag");
    const oldValue = ((await first.json()) as { data: { residual_demand_mw: number }[] }).data[0]!
      .residual_demand_mw;

    const key = `/${stand.folder}/System_hourly_actual_and_forecasted_demand.csv`;
    const text = stand.files.get(key)!.toString("utf8");
    const line = text.split("\r\n").find((l) => l.startsWith("2023-02-14 00:00:00;"))!;
    const cells = line.split(";");
    cells[3] = "20000,5"; // Residual Demand, corrected by the portal
    // And the next hour's actual is published: 2023-02-20 00:00 SAST had only its forecast.
    const next = "2023-02-20 00:00:00;20060;21938,544000000002;;";
    const published = "2023-02-20 00:00:00;20060;21938,544000000002;19876,5;21700";
    stand.files.set(key, Buffer.from(text.replace(line, cells.join(";")).replace(next, published)));
    const before = (await (await server.get(path)).json()) as { meta: { last_available: string } };
    assert.equal(before.meta.last_available, "2023-02-19T21:00:00+00:00");
    const later = NOW + 3_600_000;
    const result = await pull(dir, stand.url, later);
    const demand = result.files.find((f) => f.file.startsWith("System_hourly"))!;
    assert.equal(demand.hoursRevised, 2, "a corrected value, and an actual added to a forecast-only hour");
    const fresh = (await (await server.get(path)).json()) as { meta: { last_available: string } };
    assert.equal(
      fresh.meta.last_available,
      "2023-02-19T22:00:00+00:00",
      "the running server sees the new hour",
    );

    const now = await server.get(path);
    assert.notEqual(now.headers.get("etag"), oldTag);
    assert.equal(
      ((await now.json()) as { data: { residual_demand_mw: number }[] }).data[0]!.residual_demand_mw,
      20000.5,
    );
    const asOf = new Date(later - 1).toISOString();
    const then = await server.get(`${path}&as_of=${asOf}`);
    assert.equal(
      ((await then.json()) as { data: { residual_demand_mw: number }[] }).data[0]!.residual_demand_mw,
      oldValue,
    );
  },
);

test(
  "an HTML page with 200, an empty body, a cut body or a changed header is refused; the store stays; the rest go in",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await pull(dir, stand.url);
    const html = "<!DOCTYPE html><html><head><title>Error 404 - www.eskom.co.za</title></head></html>";
    const cases: [string, Behaviour, RegExp][] = [
      [
        "an HTML page",
        (_q, r) => void r.writeHead(200, { "Content-Type": "text/csv" }).end(html),
        /HTML page/,
      ],
      [
        "an empty body",
        (_q, r) => void r.writeHead(200, { "Content-Type": "text/csv", "Content-Length": 0 }).end(),
        /empty body/,
      ],
      [
        "a cut body",
        (_q, r, body) => {
          r.writeHead(200, { "Content-Type": "text/csv", "Content-Length": body.length });
          r.write(body.subarray(0, 500));
          setTimeout(() => r.destroy(), 20);
          return true;
        },
        /shorter than its Content-Length|closed before the body was complete/,
      ],
      [
        "a changed header",
        (_q, r, body) => {
          const text = body.toString("utf8").replace("Residual Demand", "Residual_Demand_MW");
          r.writeHead(200, { "Content-Type": "text/csv" }).end(text);
          return true;
        },
        /changed its header row/,
      ],
    ];
    for (const [what, behaviour, message] of cases) {
      const before = snapshotDir(dir);
      stand.behave.set("System_hourly_actual_and_forecasted_demand.csv", (q, r, b) => {
        behaviour(q, r, b);
        return true;
      });
      const result = await pull(dir, stand.url);
      assert.equal(result.ok, false, what);
      const demand = result.files.find((f) => f.file.startsWith("System_hourly"))!;
      assert.equal(demand.result, "failed", what);
      assert.match(demand.error!, message, what);
      assert.match(demand.error!, new RegExp(stand.url.replace(/[.:/]/g, "\\$&")), "the error names the URL");
      const after = snapshotDir(dir);
      for (const name of Object.keys(before).filter(
        (n) => n.startsWith("readings/") || n === "manifest.json",
      )) {
        assert.equal(after[name], before[name], `${what}: ${name} unchanged`);
      }
      assert.deepEqual(
        result.files.filter((f) => !f.file.startsWith("System_hourly")).map((f) => f.result),
        ["not-modified", "not-modified"],
        "the other files are still pulled (and found current)",
      );
    }
  },
);

test(
  "500 twice then 200 succeeds; a hanging server times out and the pull fails in bounded time",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    let failures = 0;
    stand.behave.set("Station_Build_Up.csv", (_q, r) => {
      if (failures >= 2) return false;
      failures++;
      r.writeHead(500).end("busy");
      return true;
    });
    const ok = await pull(dir, stand.url);
    assert.equal(ok.ok, true, JSON.stringify(ok.files));
    assert.equal(failures, 2);

    stand.behave.set("Hourly_Generation.csv", () => true); // accepts, never answers
    const started = Date.now();
    const hung = await pullPortal({
      dir,
      baseUrl: stand.url,
      files: ["Hourly_Generation.csv"],
      policy: { timeoutMs: 300, attempts: 2, backoffMs: 5, maxBackoffMs: 10 },
      now: () => NOW,
    });
    const took = Date.now() - started;
    assert.equal(hung.ok, false);
    assert.match(hung.files[0]!.error!, /no (complete )?answer within 0.3 s.*after 2 attempts/);
    assert.ok(took < 5000, `bounded: ${took} ms`);
  },
);

test(
  "a 404 for this month's folder falls back to last month's; a 4xx is never retried",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t, "2023/01");
    const dir = tempDir(t);
    const result = await pull(dir, stand.url);
    assert.equal(result.ok, true, JSON.stringify(result.files));
    assert.ok(result.files.every((f) => f.url.includes("/2023/01/")));
    // 2023-02-01 00:30 SAST is still 2023-01-31 in UTC: SAST decides the folder.
    stand.requests.length = 0;
    await pull(tempDir(t), stand.url, Date.parse("2023-01-31T22:30:00Z"));
    assert.ok(stand.requests[0]!.path.startsWith("/2023/02/"), stand.requests[0]!.path);

    stand.behave.set("Station_Build_Up.csv", (_q, r) => (r.writeHead(403).end(), true));
    stand.requests.length = 0;
    const refused = await pull(tempDir(t), stand.url);
    assert.equal(refused.files[0]!.result, "failed");
    assert.match(refused.files[0]!.error!, /HTTP 403/);
    assert.equal(
      stand.requests.filter((r) => r.path.endsWith("Station_Build_Up.csv")).length,
      1,
      "not retried",
    );
  },
);

test(
  "npm run pull exits 0 when current, non-zero on a failure, and --json prints one summary line",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(
      t,
      new Date(Date.now() + 2 * 3_600_000).toISOString().slice(0, 7).replace("-", "/"),
    );
    const dir = tempDir(t);
    const run = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", "scripts/pull.ts", "--json"], {
          cwd: ROOT,
          env: { ...process.env, DATA_DIR: dir, PORTAL_URL: stand.url, PULL_BACKOFF_S: "0.01", ...env },
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        child.on("exit", (code) => resolve({ code, stdout, stderr }));
      });
    const ok = await run({});
    assert.equal(ok.code, 0, ok.stderr);
    const summary = JSON.parse(ok.stdout.trim());
    assert.equal(summary.ok, true);
    assert.equal(summary.files.length, 3);
    assert.match(ok.stderr, /Station_Build_Up.csv: 144 hours added/);
    stand.behave.set(
      "Hourly_Generation.csv",
      (_q, r) => (r.writeHead(200, { "Content-Type": "text/html" }).end("<html></html>"), true),
    );
    const failed = await run({ PORTAL_FILES: "Hourly_Generation.csv" });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /FAILED: .*HTML page/);
    const bad = await run({ PULL_TIMEOUT_S: "soon" });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Invalid PULL_TIMEOUT_S: "soon" must be a number of seconds/);
  },
);
