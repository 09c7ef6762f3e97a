/**
 * Byte-for-byte guard for refactors: the SHA-256 of the status, ETag, content type and body of a
 * fixed set of queries, over generated sample data and (when present) the real Eskom files, is
 * compared with `test/golden/responses.json`. A refactor that must not change behaviour leaves
 * every hash in place; a change that is meant to alter a response regenerates the file with
 * `UPDATE_GOLDEN=1 node --import tsx --test test/golden-responses.test.ts` and says why in its commit.
 * Only hashes are kept: no response built from the real files is stored in the repository.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { REAL_DATA_SKIP, startServer, tempDir, writeFile } from "./helpers.ts";
import { export2018Store, liveSnapshotStore } from "./fixture-stores.ts";

const GOLDEN = join(import.meta.dirname, "golden", "responses.json");
const UPDATE = process.env.UPDATE_GOLDEN === "1";

const DATASETS = ["/api/v1/grid/system-state", "/api/v1/generation/mix", "/api/v1/features/grid-stress"];

// Every dataset at both intervals, in JSON and CSV, over ranges that start mid-day, cross the
// stored data's edges and include whole days; grid stress with and without its components, in
// both versions.
function queries(ranges: readonly string[]): string[] {
  const out: string[] = [];
  for (const path of DATASETS) {
    for (const range of ranges) {
      for (const interval of ["1h", "1d"]) {
        out.push(`${path}?${range}&interval=${interval}`);
        out.push(`${path}?${range}&interval=${interval}&format=csv`);
      }
    }
  }
  for (const range of ranges) {
    out.push(`/api/v1/features/grid-stress?${range}&components=true`);
    out.push(`/api/v1/features/grid-stress?${range}&components=true&version=v1`);
  }
  return out;
}

async function hashes(
  url: (path: string) => Promise<Response>,
  paths: readonly string[],
  options: { etagOf?: (path: string) => boolean } = {},
) {
  const out: Record<string, string> = {};
  for (const path of paths) {
    const res = await url(path);
    // The set of every dataset asks only what each serves: an error there is a broken query.
    if (options.etagOf !== undefined) assert.equal(res.status, 200, `${path}: ${res.status}`);
    let body = Buffer.from(await res.arrayBuffer());
    let etag = options.etagOf === undefined || options.etagOf(path) ? res.headers.get("etag") : null;
    if (path === "/api/v1/datasets") {
      // The catalog names the time of the ingest this test just ran: leave that out.
      const { last_ingest: _lastIngest, ...rest } = JSON.parse(body.toString()) as Record<string, unknown>;
      body = Buffer.from(JSON.stringify(rest));
      etag = null;
    }
    const named = ["content-disposition", "data-source", "last-modified", "cache-control"];
    const head =
      `${res.status}\n${etag}\n${res.headers.get("content-type")}\n` +
      (options.etagOf === undefined ? "" : named.map((h) => `${res.headers.get(h)}\n`).join(""));
    out[path] = createHash("sha256").update(head).update(body).digest("hex");
  }
  return out;
}

function compare(name: string, actual: Record<string, string>): void {
  const golden = existsSync(GOLDEN)
    ? (JSON.parse(readFileSync(GOLDEN, "utf8")) as Record<string, unknown>)
    : {};
  if (UPDATE) {
    writeFileSync(GOLDEN, JSON.stringify({ ...golden, [name]: actual }, null, 2) + "\n");
    return;
  }
  const expected = golden[name] as Record<string, string> | undefined;
  assert.ok(expected, `no golden hashes for ${name}: run with UPDATE_GOLDEN=1 once`);
  const changed = Object.keys(expected).filter((path) => actual[path] !== expected[path]);
  assert.deepEqual(changed, [], "these responses changed");
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
}

// Every dataset of every kind (hourly readings, grid stress, published periods, forecast issues),
// in every format it answers in, with tz, agg, columns, as_of and /latest: a store built at fixed
// instants (two ingests, a day apart, so that as_of has something to tell), served at a fixed now.
const EVERY_DATASET = {
  hourly: [
    "/api/v1/grid/system-state",
    "/api/v1/generation/mix",
    "/api/v1/grid/load-reduction",
    "/api/v1/grid/availability",
    "/api/v1/grid/supply-margin",
    "/api/v1/grid/pumped-storage",
    "/api/v1/features/grid-stress",
  ],
  periods: ["/api/v1/grid/availability/weekly", "/api/v1/grid/availability/monthly"],
  forecast: "/api/v1/forecasts/demand",
};
const FIRST_INGEST = Date.parse("2025-03-02T06:00:00Z");
const SECOND_INGEST = Date.parse("2025-03-03T06:00:00Z");
const SERVED_AT = Date.parse("2025-03-05T09:30:00Z");

function everyDatasetQueries(): string[] {
  const out: string[] = [];
  const range = "start=2025-02-20&end=2025-02-27T05:00:00Z";
  const asOf = "as_of=2025-03-02T12:00:00Z";
  for (const path of EVERY_DATASET.hourly) {
    for (const format of ["json", "csv", "parquet"]) {
      out.push(`${path}?${range}&format=${format}`);
      out.push(`${path}?${range}&interval=1d&format=${format}`);
    }
    out.push(`${path}?${range}&tz=Africa/Johannesburg`);
    out.push(`${path}?start=2025-01-01&end=2025-03-01&interval=1w&tz=Africa/Johannesburg`);
    out.push(`${path}?start=2025-01-01&end=2025-03-01&interval=1mo&agg=max&format=csv`);
    out.push(`${path}?${range}&${asOf}`);
    out.push(`${path}?${range}&interval=1d&${asOf}&format=csv`);
    out.push(`${path}/latest?hours=30`);
    out.push(`${path}/latest?hours=5&tz=Africa/Johannesburg&format=csv`);
  }
  out.push(`/api/v1/grid/system-state?${range}&columns=residual_demand_mw,forecast_error_mw`);
  out.push(`/api/v1/generation/mix?${range}&interval=1d&columns=avg_wind_mw&format=parquet`);
  out.push(`/api/v1/features/grid-stress?${range}&components=true&format=csv`);
  out.push(`/api/v1/features/grid-stress?${range}&version=v1&components=true&format=parquet`);
  for (const path of EVERY_DATASET.periods) {
    for (const format of ["json", "csv", "parquet"]) {
      out.push(`${path}?start=2024-01-01&end=2025-03-05&format=${format}`);
      out.push(`${path}?start=2024-06-01&end=2025-03-05&tz=Africa/Johannesburg&format=${format}`);
    }
    out.push(`${path}?start=2024-01-01&end=2025-03-05&columns=eaf_pct,uclf_pct`);
    out.push(`${path}?start=2024-01-01&end=2025-03-05&${asOf}`);
  }
  const forecast = EVERY_DATASET.forecast;
  for (const format of ["json", "csv"]) {
    out.push(`${forecast}?start=2025-03-03&end=2025-03-10&format=${format}`);
    out.push(`${forecast}?start=2025-03-03&end=2025-04-10&interval=1d&format=${format}`);
    out.push(`${forecast}?start=2025-03-03&end=2025-03-06&issues=all&format=${format}`);
    out.push(`${forecast}?start=2025-03-03&end=2025-03-20&interval=1d&issues=all&format=${format}`);
  }
  out.push(`${forecast}?start=2025-03-03&end=2025-03-06&as_of=2025-03-03T12:00:00Z`);
  return out;
}

test("every dataset of every kind answers byte-identically to the golden set", async (t) => {
  const { ForecastIssues } = await import("../src/forecasts/forecast-issues.ts");
  const { generateSampleForecastIssues, SAMPLE_FORECAST_NAME } =
    await import("../src/sample/sample-forecast.ts");
  const { seedSamplePeriods } = await import("../src/sample/seed-sample-periods.ts");
  const dir = tempDir(t);
  const first = writeFile(dir, "sample.csv", generateSampleExport({ firstDay: "2024-12-01", days: 91 }));
  assert.deepEqual(ingestFiles([first], { dir, now: () => FIRST_INGEST }).failures, []);
  const revised = writeFile(
    dir,
    "revised.csv",
    generateSampleExport({ firstDay: "2025-02-24", days: 3, seed: 7 }),
  );
  assert.deepEqual(ingestFiles([revised], { dir, now: () => SECOND_INGEST }).failures, []);
  const lastHour = Date.parse("2025-03-01T21:00:00Z");
  assert.ok(seedSamplePeriods(dir, { lastHour, days: 91 }, FIRST_INGEST) > 0);
  const issues = new ForecastIssues(dir);
  for (const { text, receivedAt } of generateSampleForecastIssues(SECOND_INGEST + DAY, 4)) {
    const sha256 = createHash("sha256").update(text).digest("hex");
    issues.add(text, { name: SAMPLE_FORECAST_NAME, receivedAt, sha256, sample: true });
  }
  // Last-Modified of the hourly datasets is the manifest's time: that of the second ingest.
  utimesSync(join(dir, "manifest.json"), SECOND_INGEST / 1000, SECOND_INGEST / 1000);
  const server = await startServer(t, dir, { now: () => SERVED_AT });
  // The ETags of the hourly datasets are kept too: clients poll them with If-None-Match.
  compare(
    "every_dataset",
    await hashes((path) => server.get(path), everyDatasetQueries(), { etagOf: hourlyPath }),
  );
});

const DAY = 86_400_000;
const hourlyPath = (path: string) => EVERY_DATASET.hourly.some((p) => path.startsWith(`${p}?`));

test("responses over generated sample data are byte-identical to the golden set", async (t) => {
  const dir = tempDir(t);
  const csv = writeFile(dir, "sample.csv", generateSampleExport({ firstDay: "2025-01-01", days: 70 }));
  assert.deepEqual(ingestFiles([csv], { dir }).failures, []);
  const server = await startServer(t, dir);
  const paths = [
    ...queries([
      "start=2025-01-01&end=2025-01-03",
      "start=2025-01-30T05:00:00Z&end=2025-03-02T17:00:00Z",
      "start=2024-12-20&end=2025-03-20",
    ]),
    "/api/v1/datasets",
  ];
  compare("sample", await hashes((path) => server.get(path), paths));
});

test(
  "responses over the real 2018 export and 2023 live files are byte-identical to the golden set",
  { skip: REAL_DATA_SKIP },
  async (t) => {
    const exported = await startServer(t, tempDir(t), { storeDir: await export2018Store() });
    compare(
      "export_2018",
      await hashes(
        (path) => exported.get(path),
        queries([
          "start=2018-04-01&end=2018-04-03",
          "start=2018-05-28T13:00:00Z&end=2018-07-02T09:00:00Z",
          "start=2018-03-01&end=2018-09-01",
        ]),
      ),
    );

    const served = await startServer(t, tempDir(t), { storeDir: await liveSnapshotStore() });
    compare(
      "live_2023",
      await hashes(
        (path) => served.get(path),
        queries(["start=2023-02-13&end=2023-02-23", "start=2023-02-15T07:00:00Z&end=2023-02-20"]),
      ),
    );
  },
);
