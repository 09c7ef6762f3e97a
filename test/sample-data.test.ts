import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { parsePortalCsv } from "../src/source/portal-csv.ts";
import { loadManifest, MANIFEST_FILE } from "../src/store/manifest.ts";
import { isSampleStore, SAMPLE_FILE, SAMPLE_REMOVING_FILE } from "../src/store/sample-mark.ts";
import { storeMakeUp, verifyStore } from "../src/store/verify-store.ts";
import { HOUR_MS } from "../src/time.ts";
import {
  exportCsv,
  killWhen,
  REAL_DATA_DIR,
  REAL_DATA_SKIP,
  sast,
  snapshotDir,
  startServer,
  tempDir,
  writeFile,
} from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..");
const FIRST = Date.parse("2024-03-01T00:00:00Z");
const RANGE = "start=2024-03-02T00:00:00Z&end=2024-03-02T06:00:00Z";

/** A store of `days` sample days from 2024-03-01 (SAST), and the sample file's path. */
function sampleStore(t: Parameters<typeof tempDir>[0], days = 10): { dir: string; file: string } {
  const dir = tempDir(t);
  const file = writeFile(tempDir(t), "sample.csv", generateSampleExport({ firstDay: "2024-03-01", days }));
  const summary = ingestFiles([file], { dir });
  assert.deepEqual(summary.failures, []);
  assert.equal(summary.sample, true);
  return { dir, file };
}

/** A small real-format export (no sample column) of `hours` hours from `from`. */
function realExport(from: number, hours: number): string {
  const rows = Array.from({ length: hours }, (_, h) => [sast(from + h * HOUR_MS), 25_000 + h, 21_000 + h]);
  return exportCsv(["Residual Demand", "Thermal Generation"], rows);
}

const dayFiles = (dir: string) =>
  existsSync(join(dir, "readings"))
    ? readdirSync(join(dir, "readings")).filter((n) => /^\d{4}-\d{2}-\d{2}\.jsonl$/.test(n))
    : [];

test("a generated sample file says so in every row, and the parser reads it as sample", () => {
  const text = generateSampleExport({ firstDay: "2024-03-01", days: 1 });
  const lines = text.trimEnd().split("\n");
  assert.match(lines[0]!, /,Generated Sample Not Eskom Data$/);
  for (const line of lines.slice(1)) assert.ok(line.endsWith(",1"), line);
  assert.equal(parsePortalCsv(text, "s.csv").sample, true);
  assert.equal(parsePortalCsv(realExport(FIRST, 2), "r.csv").sample, false);
});

test("a sample ends at the hour asked for, and the same end hour gives the same bytes", () => {
  const lastHour = Date.parse("2026-11-25T01:00:00Z");
  const text = generateSampleExport({ lastHour, days: 2 });
  assert.equal(text, generateSampleExport({ lastHour, days: 2 }));
  const file = parsePortalCsv(text, "s.csv");
  assert.equal(file.rows.length, 48);
  assert.equal(file.rows.at(-1)!.hour, lastHour);
  assert.equal(file.rows[0]!.hour, lastHour - 47 * HOUR_MS);
});

test("a sample store is marked in sample.json and per day in the manifest, and the mark survives a rebuilt manifest", (t) => {
  const { dir } = sampleStore(t, 3);
  assert.ok(existsSync(join(dir, SAMPLE_FILE)));
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), "utf8")) as {
    days: Record<string, { source?: string }>;
  };
  assert.ok(Object.keys(manifest.days).length >= 3);
  for (const entry of Object.values(manifest.days)) assert.equal(entry.source, "sample");
  // Damaged, then missing: both rebuilt from the day files, still sample.
  writeFileSync(join(dir, MANIFEST_FILE), "{ not json");
  assert.ok([...loadManifest(dir).values()].every((e) => e.sample));
  rmSync(join(dir, MANIFEST_FILE));
  assert.ok([...loadManifest(dir).values()].every((e) => e.sample));
  assert.deepEqual(storeMakeUp(dir), { realDays: 0, sampleDays: dayFiles(dir).length });
});

test("every answer from a sample store says so: meta.sample, Data-Source on JSON and CSV, the catalog and /healthz", async (t) => {
  const { dir } = sampleStore(t);
  const server = await startServer(t, dir);
  for (const path of [
    "/api/v1/grid/system-state",
    "/api/v1/generation/mix",
    "/api/v1/features/grid-stress",
  ]) {
    for (const interval of ["1h", "1d"]) {
      const res = await server.get(`${path}?${RANGE}&interval=${interval}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("data-source"), "sample", path);
      const body = (await res.json()) as { meta: Record<string, unknown>; data: unknown[] };
      assert.equal(body.meta.sample, true);
      assert.ok(body.data.length > 0);
      const csv = await server.get(`${path}?${RANGE}&interval=${interval}&format=csv`);
      assert.equal(csv.headers.get("data-source"), "sample");
    }
  }
  // A repeat within the hour (304 and the kept body) keeps the mark.
  const first = await server.get(`/api/v1/grid/system-state?${RANGE}`);
  const again = await server.get(`/api/v1/grid/system-state?${RANGE}`, {
    headers: { "If-None-Match": first.headers.get("etag")! },
  });
  assert.equal(again.status, 304);
  const catalog = await server.get("/api/v1/datasets");
  assert.equal(catalog.headers.get("data-source"), "sample");
  assert.equal(((await catalog.json()) as { sample?: boolean }).sample, true);
  // The sample ended in 2024: old, yet not an alarm.
  const health = await server.raw("/healthz");
  assert.equal(health.status, 200);
  assert.equal(health.headers.get("data-source"), "sample");
  const h = (await health.json()) as Record<string, unknown>;
  assert.equal(h.status, "sample");
  assert.equal(h.stale, false);
  assert.equal(h.sample, true);
});

test("the first real ingest removes every sample day, packs and revisions included, and says so", async (t) => {
  const { dir } = sampleStore(t);
  const server = await startServer(t, dir);
  const before = (await (await server.get(`/api/v1/grid/system-state?${RANGE}`)).json()) as {
    data: unknown[];
  };
  assert.equal(before.data.length, 6);
  const sampleDays = dayFiles(dir).length;

  // Real hours on two of the sample's days: none of the sample's values may survive beside them.
  const real = writeFile(tempDir(t), "ESK0001.csv", realExport(FIRST + 2 * 24 * HOUR_MS, 30));
  const summary = ingestFiles([real], { dir });
  assert.deepEqual(summary.failures, []);
  assert.equal(summary.sampleDaysRemoved, sampleDays);
  assert.equal(summary.sample, false);

  // The files: no sample mark, only the real days, revisions of the real ingest only.
  assert.ok(!existsSync(join(dir, SAMPLE_FILE)) && !existsSync(join(dir, SAMPLE_REMOVING_FILE)));
  assert.deepEqual(dayFiles(dir), ["2024-03-03.jsonl", "2024-03-04.jsonl"]);
  const files = Object.keys(snapshotDir(dir));
  assert.deepEqual(
    files.filter((f) => f.startsWith("readings/") && !f.endsWith(".jsonl")),
    ["readings/2024-03.pack"],
  );
  assert.deepEqual(
    files.filter((f) => f.startsWith("revisions/")),
    ["revisions/days.jsonl"],
  );
  const created = readFileSync(join(dir, "revisions", "days.jsonl"), "utf8")
    .trim()
    .split("\n");
  assert.equal(created.length, 1);
  assert.doesNotMatch(readFileSync(join(dir, MANIFEST_FILE), "utf8"), /sample/);
  assert.deepEqual(storeMakeUp(dir), { realDays: 2, sampleDays: 0 });
  assert.deepEqual(verifyStore(dir), []);

  // The answers: nothing for the sample's days, real days unmarked.
  const gone = await server.get(`/api/v1/grid/system-state?${RANGE}`);
  assert.equal(gone.headers.get("data-source"), null);
  const goneBody = (await gone.json()) as { meta: Record<string, unknown>; data: unknown[] };
  assert.deepEqual(goneBody.data, []);
  assert.equal("sample" in goneBody.meta, false);
  const kept = await server.get("/api/v1/generation/mix?start=2024-03-03&end=2024-03-05&interval=1d");
  assert.equal(kept.headers.get("data-source"), null);
  const keptBody = (await kept.json()) as {
    meta: Record<string, unknown>;
    data: { hours: number; avg_thermal_mw: number; avg_wind_mw: number | null }[];
  };
  assert.equal("sample" in keptBody.meta, false);
  // Only the real file's values: 21,000 + h for its hours, and no sample wind.
  assert.deepEqual(
    keptBody.data.map((r) => [r.hours, r.avg_thermal_mw, r.avg_wind_mw]),
    [
      [24, 21_011.5, null],
      [6, 21_026.5, null],
    ],
  );
  const health = (await (await server.raw("/healthz")).json()) as Record<string, unknown>;
  assert.equal("sample" in health, false);
  assert.notEqual(health.status, "sample");
  const catalog = (await (await server.get("/api/v1/datasets")).json()) as Record<string, unknown>;
  assert.equal("sample" in catalog, false);
  // as_of never reaches back into the sample: the history begins with the real ingest.
  const asOf = await server.get(`/api/v1/grid/system-state?${RANGE}&as_of=2024-03-01T00:00:00Z`);
  assert.equal(asOf.status, 400);
  assert.match(((await asOf.json()) as { detail: string }).detail, /before the first recorded ingest/);
  const asOfNow = await server.get(`/api/v1/grid/system-state?${RANGE}&as_of=${new Date().toISOString()}`);
  assert.deepEqual(((await asOfNow.json()) as { data: unknown[] }).data, []);
});

test("sample files are refused beside real files and into a real store; a file that fails to parse removes nothing", (t) => {
  const { dir, file: sample } = sampleStore(t, 2);
  const folder = tempDir(t);
  const html = writeFile(folder, "Hourly_Generation.csv", "<html>portal down</html>");
  const bad = ingestFiles([html], { dir });
  assert.equal(bad.sampleDaysRemoved, 0);
  assert.ok(isSampleStore(dir), "a refused real file leaves the sample as it was");

  const real = writeFile(folder, "ESK0001.csv", realExport(FIRST, 3));
  const mixed = ingestFiles([sample, real], { dir });
  assert.equal(mixed.failures.length, 1);
  assert.match(
    mixed.failures[0]!.message,
    /is generated sample data, not Eskom's, and is not ingested with real files/,
  );
  assert.ok(!isSampleStore(dir));
  assert.deepEqual(dayFiles(dir), ["2024-03-01.jsonl"]);

  const again = ingestFiles([sample], { dir });
  assert.equal(again.failures.length, 1);
  assert.match(again.failures[0]!.message, /this store holds real data/);
  assert.ok([...loadManifest(dir).values()].every((e) => !e.sample));
});

test("a removal cut short (by 1.3, which left no mark) is served as 503, verify-store names it, and the next ingest finishes it", async (t) => {
  const { dir } = sampleStore(t, 4);
  // The state a kill leaves after the commit point: the intent file, part of the sample still on disk.
  renameSync(join(dir, SAMPLE_FILE), join(dir, SAMPLE_REMOVING_FILE));
  rmSync(join(dir, MANIFEST_FILE));
  rmSync(join(dir, "readings", dayFiles(dir)[0]!));
  assert.ok(dayFiles(dir).length > 0);
  assert.equal(loadManifest(dir).size, 0);
  assert.equal(isSampleStore(dir), false);
  const problems = verifyStore(dir);
  assert.equal(problems.length, 1);
  assert.equal(problems[0]!.file, SAMPLE_REMOVING_FILE);
  assert.match(
    problems[0]!.problem,
    /killed or failed before it finished; servers answer 503 .* run the ingest again/,
  );
  const server = await startServer(t, dir);
  const res = await server.get(`/api/v1/grid/system-state?${RANGE}`);
  assert.equal(res.status, 503, "never an empty 200");

  const summary = ingestFiles([writeFile(tempDir(t), "ESK0001.csv", realExport(FIRST, 3))], { dir });
  assert.deepEqual(summary.failures, []);
  assert.ok(!existsSync(join(dir, SAMPLE_REMOVING_FILE)));
  assert.deepEqual(dayFiles(dir), ["2024-03-01.jsonl"]);
  assert.deepEqual(verifyStore(dir), []);
});

test("a real ingest killed part-way leaves the whole sample or none of it, never a mix", async (t) => {
  const { dir } = sampleStore(t, 60);
  const original = snapshotDir(dir);
  const real = writeFile(tempDir(t), "ESK0001.csv", realExport(FIRST + 90 * 24 * HOUR_MS, 48));
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/ingest.ts", real], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir },
    stdio: "ignore",
  });
  // Kill it as soon as the removal has begun (or whenever it ends, if it was quicker).
  const when = await killWhen(child, () => !existsSync(join(dir, SAMPLE_FILE)), "during the removal");
  t.diagnostic(`killed ${when}`);
  const manifest = loadManifest(dir);
  const sampleDays = [...manifest.values()].filter((e) => e.sample).length;
  if (sampleDays > 0) {
    // The whole sample, byte for byte, and nothing real.
    assert.equal(sampleDays, manifest.size);
    const now = snapshotDir(dir);
    for (const [name, text] of Object.entries(original)) assert.equal(now[name], text, name);
  }
  // Finished by the next run: the real days only.
  const rerun = spawnSync(process.execPath, ["--import", "tsx", "scripts/ingest.ts", real], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir },
    encoding: "utf8",
  });
  assert.equal(rerun.status, 0, rerun.stderr);
  assert.deepEqual(dayFiles(dir), ["2024-05-30.jsonl", "2024-05-31.jsonl"]);
  assert.ok(!existsSync(join(dir, SAMPLE_FILE)) && !existsSync(join(dir, SAMPLE_REMOVING_FILE)));
  assert.deepEqual(verifyStore(dir), []);
});

test(
  "the portal's live files ingested into a sample store replace it: the ingest says what it removed",
  { skip: REAL_DATA_SKIP },
  async (t) => {
    const { dir } = sampleStore(t, 5);
    const live = join(REAL_DATA_DIR, "portal_snapshot_2023-02-21");
    const files = readdirSync(live).map((name) => join(live, name));
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/ingest.ts", ...files], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir },
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /Removed \d+ days of sample data \(generated, not Eskom's\) before storing real data/,
    );
    assert.ok(dayFiles(dir).every((name) => name >= "2022-12-31" && name < "2023-03"));
    const server = await startServer(t, dir);
    const res = await server.get(
      "/api/v1/grid/system-state?start=2023-02-15T00:00:00Z&end=2023-02-15T06:00:00Z",
    );
    assert.equal(res.headers.get("data-source"), null);
    const body = (await res.json()) as { meta: Record<string, unknown>; data: unknown[] };
    assert.equal(body.data.length, 6);
    assert.equal("sample" in body.meta, false);
    const sample = (await (await server.get(`/api/v1/grid/system-state?${RANGE}`)).json()) as {
      data: unknown[];
    };
    assert.deepEqual(sample.data, []);
  },
);
