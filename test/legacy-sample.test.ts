/**
 * 0.1.0's `make serve` ingested its generated sample unmarked, keeping the file in
 * `DATA_DIR/sample/`. The fixture test/fixtures/store-0.1.0 holds that release's store and the
 * very file it was made from (both written by that release's code): laid out as its `make serve`
 * left them, the store is found to be generated, marked by `npm run upgrade-store`, and reported
 * when real days were ingested beside it.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { findLegacySample } from "../src/store/legacy-sample.ts";
import { loadManifest, writeManifest } from "../src/store/manifest.ts";
import { markLegacySample, upgradeStore } from "../src/store/migrations.ts";
import { isSampleStore, SAMPLE_FILE } from "../src/store/sample-mark.ts";
import { checkStore } from "../src/store/verify-store.ts";
import { exportCsv, sast, startServerProcess, tempDir, writeFile } from "./helpers.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "store-0.1.0");
const OLD_KEY = readFileSync(join(FIXTURE, "key.txt"), "utf8").trim();
const SAMPLE_NAME = "sample-export-2024-01-30-4d.csv";
const DAYS = ["2024-01-29", "2024-01-30", "2024-01-31", "2024-02-01", "2024-02-02"];

/** The 0.1.0 store as its `make serve` left it: the store, and the sample it generated in sample/. */
function demoStore(
  t: Parameters<typeof tempDir>[0],
  sample = readFileSync(join(FIXTURE, SAMPLE_NAME), "utf8"),
) {
  const dir = tempDir(t);
  cpSync(join(FIXTURE, "store"), dir, { recursive: true });
  mkdirSync(join(dir, "sample"));
  writeFileSync(join(dir, "sample", SAMPLE_NAME), sample);
  return dir;
}

// Real rows (no sample column) for three days of March 2024, as a portal export has them.
function realExport(t: Parameters<typeof tempDir>[0]): string {
  const start = Date.parse("2024-03-01T00:00:00Z");
  const rows = Array.from({ length: 72 }, (_, h) => [
    sast(start + h * 3_600_000),
    String(20_000 + h),
    String(h),
  ]);
  return writeFile(tempDir(t), "ESK0001.csv", exportCsv(["Residual Demand", "Wind"], rows));
}

test("0.1.0's generated days are found value for value; a store of them only is a migration", (t) => {
  const dir = demoStore(t);
  assert.deepEqual(findLegacySample(dir), { files: [join("sample", SAMPLE_NAME)], days: DAYS, otherDays: 0 });
  const check = checkStore(dir);
  assert.equal(check.state, "outdated", "whole, with a step to run");
  assert.deepEqual(check.problems, []);
  assert.deepEqual(
    check.outdated.filter((o) => o.migration === markLegacySample.name).map((o) => o.file),
    ["manifest.json"],
  );
  assert.equal(check.realDays, 5);

  upgradeStore(dir);
  assert.ok(isSampleStore(dir));
  assert.ok([...loadManifest(dir).values()].every((e) => e.sample));
  assert.deepEqual(checkStore(dir), {
    state: "whole",
    problems: [],
    outdated: [],
    realDays: 0,
    sampleDays: 5,
  });
  assert.equal(findLegacySample(dir), undefined, "a marked store has nothing left to find");
});

test("npm run upgrade-store marks 0.1.0's sample, after which every answer says it is sample data", async (t) => {
  const dir = demoStore(t);
  // A one-time upgrade, two releases back: a start no longer looks for it (CHANGELOG.md, 1.7.0).
  const before = await startServerProcess(t, dir);
  assert.doesNotMatch(before.stderr(), /Marked|sample data/);
  assert.equal(isSampleStore(dir), false);
  before.child.kill("SIGTERM");
  await once(before.child, "exit");

  const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/upgrade-store.ts"], {
    cwd: join(import.meta.dirname, ".."),
    env: { ...process.env, DATA_DIR: dir },
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^manifest\.json: mark the days 0\.1\.0's make serve generated/m);
  const { port } = await startServerProcess(t, dir);
  const res = await fetch(
    `http://127.0.0.1:${port}/api/v1/grid/system-state?start=2024-01-30&end=2024-01-31`,
    {
      headers: { "X-API-KEY": OLD_KEY },
    },
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("data-source"), "sample");
  const body = (await res.json()) as { meta: { sample?: boolean }; data: unknown[] };
  assert.equal(body.meta.sample, true);
  assert.equal(body.data.length, 24);
  const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { status: string };
  assert.equal(health.status, "sample");
});

test("a marking killed between the manifest and sample.json is still pending, and finishes", (t) => {
  const dir = demoStore(t);
  // What the step's first write leaves: every day flagged in the manifest, no sample.json yet.
  writeManifest(
    dir,
    new Map([...loadManifest(dir)].map(([key, entry]) => [key, { ...entry, sample: true }])),
  );
  assert.equal(isSampleStore(dir), false);
  assert.deepEqual(markLegacySample.pending(dir), ["manifest.json"]);
  upgradeStore(dir);
  assert.ok(isSampleStore(dir));
  assert.equal(checkStore(dir).state, "whole");
});

test("the first real ingest after the marking removes 0.1.0's sample, as it removes any", (t) => {
  const dir = demoStore(t);
  upgradeStore(dir, [markLegacySample]);
  const summary = ingestFiles([realExport(t)], { dir });
  assert.deepEqual(summary.failures, []);
  assert.equal(summary.sampleDaysRemoved, 5);
  assert.deepEqual([...loadManifest(dir).keys()], ["2024-03-01", "2024-03-02", "2024-03-03"]);
  assert.equal(existsSync(join(dir, SAMPLE_FILE)), false);
  assert.equal(findLegacySample(dir), undefined);
});

test("0.1.0's sample beside real days is named by verify-store, and left to the operator", (t) => {
  const dir = demoStore(t);
  // Real days ingested into the unmarked store, as 0.1.0 (or this release, before the upgrade) did.
  assert.deepEqual(ingestFiles([realExport(t)], { dir }).failures, []);
  assert.deepEqual(findLegacySample(dir), { files: [join("sample", SAMPLE_NAME)], days: DAYS, otherDays: 3 });
  assert.deepEqual(markLegacySample.pending(dir), [], "never marked: that would hide real days");
  const check = checkStore(dir);
  assert.equal(check.state, "damaged");
  assert.equal(check.problems.length, 1);
  assert.equal(check.problems[0]!.file, join("sample", SAMPLE_NAME));
  assert.match(check.problems[0]!.problem, /5 stored days \(2024-01-29 to 2024-02-02\) equal it/);
  assert.match(check.problems[0]!.problem, /beside 3 real days/);
  assert.deepEqual(upgradeStore(dir, [markLegacySample]), []);
  assert.equal(isSampleStore(dir), false);
});

test("no false alarm: a sample file whose values the store does not hold, or one that does not parse", (t) => {
  // This release's generator for the same days makes other values: the store is not its output.
  const other = demoStore(t, generateSampleExport({ firstDay: "2024-01-30", days: 4, seed: 7 }));
  assert.equal(findLegacySample(other), undefined);
  assert.equal(checkStore(other).problems.length, 0);
  // One changed value in one hour makes that day not the sample's.
  const csv = readFileSync(join(FIXTURE, SAMPLE_NAME), "utf8").split("\n");
  csv[30] = csv[30]!.replace(/,(\d+)\.(\d)/, (_m, a: string, b: string) => `,${a}.${(Number(b) + 1) % 10}`);
  const changed = demoStore(t, csv.join("\n"));
  const found = findLegacySample(changed)!;
  assert.equal(found.days.length, 4);
  assert.equal(found.otherDays, 1);
  // A file that is not a portal CSV proves nothing; the store is read as real, and nothing throws.
  const broken = demoStore(t, "<html>not a csv</html>");
  assert.equal(findLegacySample(broken), undefined);
  assert.equal(checkStore(broken).state, "outdated");
});
