/**
 * Eskom's 3-month forecast, kept issue by issue (src/forecasts/) and served at
 * /api/v1/forecasts/demand: what makes an issue, what is refused, what a killed or damaged write
 * leaves, and the endpoint's range rules, as_of, formats and validators.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DamagedForecastError, FORECASTS_DIR, ForecastIssues } from "../src/forecasts/forecast-issues.ts";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { PortalCsvError } from "../src/source/portal-csv.ts";
import { liveCsv, startServer, tempDir, writeFile } from "./helpers.ts";

const HOUR = 3_600_000;
const HEADER = ["Date_Time_Hour_Beginning", "RSA Contracted Forecast", "Residual Forecast"];
const NAME = "Official_hourly_forecast_for_next_3_months.csv";

/** A forecast file from 2025-06-01 00:00 SAST: `hours` rows, each value `base` plus the hour. */
function forecastCsv(hours: number, base: number, from = Date.parse("2025-05-31T22:00:00Z")): string {
  const rows = Array.from({ length: hours }, (_, h) => {
    const sast = new Date(from + h * HOUR + 2 * HOUR).toISOString().slice(0, 19).replace("T", " ");
    return [sast, base + h + 0.125, base - 1_000 + h + 0.25];
  });
  return liveCsv(HEADER, rows);
}

const at = (iso: string) => Date.parse(iso);
const add = (dir: string, text: string, receivedAt: number) =>
  new ForecastIssues(dir).add(text, { name: NAME, receivedAt, sha256: String(receivedAt) });

test("a download is an issue when its forecast differs from the newest; the same values again are that issue", (t) => {
  const dir = tempDir(t);
  const first = add(dir, forecastCsv(48, 25_000), at("2025-06-01T04:10:00Z"));
  assert.equal(first.result, "issued");
  assert.deepEqual(
    { ...first.entry, hash: "-", file: "-" },
    {
      issued_at: "2025-06-01T04:10:00.000Z",
      file: "-",
      hash: "-",
      first: "2025-05-31T22:00:00Z",
      last: "2025-06-02T21:00:00Z",
      hours: 48,
      source_sha256: String(at("2025-06-01T04:10:00Z")),
    },
    "SAST stamps, hour beginning, in UTC",
  );
  // The same values in the ',' form with '.' decimals: not a new issue.
  const reformatted = forecastCsv(48, 25_000).replaceAll(",", ".").replaceAll(";", ",");
  const again = add(dir, reformatted, at("2025-06-01T05:00:00Z"));
  assert.equal(again.result, "same");
  assert.equal(again.entry.issued_at, "2025-06-01T04:10:00.000Z");
  const second = add(dir, forecastCsv(48, 25_500), at("2025-06-02T04:10:00Z"));
  assert.equal(second.result, "issued");
  // A republication of the first after the second is an issue again: it is the newest forecast.
  assert.equal(add(dir, forecastCsv(48, 25_000), at("2025-06-03T04:10:00Z")).result, "issued");
  assert.equal(new ForecastIssues(dir).index().length, 3);
});

test("refused, and nothing written: an older download, an empty file, an uncertain one, a forecast ingested as readings", (t) => {
  const dir = tempDir(t);
  add(dir, forecastCsv(24, 25_000), at("2025-06-02T04:10:00Z"));
  const before = readFileSync(join(dir, FORECASTS_DIR, "index.json"), "utf8");
  assert.throws(
    () => add(dir, forecastCsv(24, 26_000), at("2025-06-01T04:10:00Z")),
    /is not newer than the newest kept/,
  );
  assert.throws(
    () => add(dir, HEADER.join(";") + "\r\n", at("2025-06-03T04:10:00Z")),
    /holds no forecast hour/,
  );
  // ',' with unquoted decimal commas, where the values are whole on one row and split on the next.
  const ambiguous = [
    HEADER.join(","),
    "2025-06-01 00:00:00,25000,24000,5",
    "2025-06-01 01:00:00,25001,24001,5",
  ].join("\n");
  assert.throws(() => add(dir, ambiguous, at("2025-06-03T04:10:00Z")), PortalCsvError);
  assert.equal(readFileSync(join(dir, FORECASTS_DIR, "index.json"), "utf8"), before);

  const file = writeFile(dir, NAME, forecastCsv(24, 25_000));
  const summary = ingestFiles([file], { dir });
  assert.equal(summary.failures.length, 1);
  assert.match(
    summary.failures[0]!.message,
    /this is Eskom's 3-month demand forecast .* kept apart from readings/,
  );
  assert.equal(summary.hoursChanged, 0, "the week-ahead forecast is never overwritten by it");
});

test("a write killed before the index names its issue leaves the issues as they were; the next add clears it", (t) => {
  const dir = tempDir(t);
  add(dir, forecastCsv(24, 25_000), at("2025-06-01T04:10:00Z"));
  // What a kill between the issue's file and the index leaves: a file no index names, and a temp.
  const issuesDir = join(dir, FORECASTS_DIR, "issues");
  writeFileSync(join(issuesDir, "20250602T041000Z.jsonl"), '{"ts":"2025-06-01T00:00:00Z","resid');
  writeFileSync(join(dir, FORECASTS_DIR, "index.json.tmp-123"), "{");
  assert.equal(new ForecastIssues(dir).index().length, 1);
  add(dir, forecastCsv(24, 25_100), at("2025-06-02T04:10:00Z"));
  assert.deepEqual(readdirSync(issuesDir).sort(), ["20250601T041000Z.jsonl", "20250602T041000Z.jsonl"]);
  assert.deepEqual(readdirSync(join(dir, FORECASTS_DIR)).sort(), ["index.json", "issues"]);
  const issues = new ForecastIssues(dir);
  assert.equal(issues.issue(issues.index()[1]!).contracted[0], 25_100.125);
});

test("a damaged issue or index is a 503, never a wrong or partial answer", async (t) => {
  const dir = tempDir(t);
  add(dir, forecastCsv(24, 25_000), at("2025-06-01T04:10:00Z"));
  const file = join(dir, FORECASTS_DIR, "issues", "20250601T041000Z.jsonl");
  writeFileSync(file, readFileSync(file, "utf8").replace("25000.125", "25900.125"));
  const issues = new ForecastIssues(dir);
  assert.throws(() => issues.issue(issues.index()[0]!), DamagedForecastError);
  const server = await startServer(t, dir);
  const path = "/api/v1/forecasts/demand?start=2025-06-01&end=2025-06-02";
  const damaged = await server.get(path);
  assert.equal(damaged.status, 503);
  assert.equal(damaged.headers.get("retry-after"), "600");
  assert.match(((await damaged.json()) as { detail: string }).detail, /forecast issues are damaged/);
  writeFileSync(join(dir, FORECASTS_DIR, "index.json"), "{ not json");
  assert.throws(() => new ForecastIssues(dir).index(), /index\.json is damaged/);
  assert.equal((await server.get(path.replace("06-02", "06-03"))).status, 503);
});

test("generated sample issues are replaced by the first real one, and never added beside real ones", (t) => {
  const dir = tempDir(t);
  const issues = new ForecastIssues(dir);
  const sample = { name: NAME, sha256: "s", sample: true };
  issues.add(forecastCsv(24, 20_000), { ...sample, receivedAt: at("2025-06-01T00:00:00Z") });
  assert.equal(issues.sample, true);
  add(dir, forecastCsv(24, 25_000), at("2025-06-02T04:10:00Z"));
  assert.equal(issues.sample, false);
  assert.deepEqual(
    issues.index().map((e) => e.issued_at),
    ["2025-06-02T04:10:00.000Z"],
  );
  assert.deepEqual(readdirSync(join(dir, FORECASTS_DIR, "issues")), ["20250602T041000Z.jsonl"]);
  assert.throws(
    () => issues.add(forecastCsv(24, 20_000), { ...sample, receivedAt: at("2025-06-03T00:00:00Z") }),
    /not added beside Eskom's issues/,
  );
});

test("the endpoint: newest issue by default, as_of, every issue, daily means and peaks, CSV, ETags", async (t) => {
  const dir = tempDir(t);
  add(dir, forecastCsv(72, 25_000), at("2025-06-01T04:10:00Z"));
  add(dir, forecastCsv(72, 26_000, at("2025-06-01T22:00:00Z")), at("2025-06-02T04:10:00Z"));
  const server = await startServer(t, dir);
  type Body = { meta: Record<string, unknown>; data: Record<string, string | number | null>[] };
  const get = async (query: string) => {
    const res = await server.get(`/api/v1/forecasts/demand?${query}`);
    return {
      res,
      body: res.status === 200 && !query.includes("csv") ? ((await res.json()) as Body) : undefined,
    };
  };
  // 2025-06-02 10:00 UTC: both issues forecast it (hour 36 of the first, 12 of the second).
  const hour = "start=2025-06-02T10:00:00Z&end=2025-06-02T11:00:00Z";
  const latest = (await get(hour)).body!;
  assert.deepEqual(latest.data, [
    {
      ts: "2025-06-02T10:00:00+00:00",
      issued_at: "2025-06-02T04:10:00+00:00",
      rsa_contracted_forecast_mw: 26_012.125,
      residual_forecast_mw: 25_012.25,
    },
  ]);
  assert.deepEqual(
    { ...latest.meta },
    {
      dataset: "forecasts.demand",
      interval: "1h",
      timezone: "UTC",
      schema_version: "1.0",
      derived: false,
      derivation_method: "as_published",
      start: "2025-06-02T10:00:00+00:00",
      end: "2025-06-02T11:00:00+00:00",
      issues: "latest",
      last_issued: "2025-06-02T04:10:00+00:00",
    },
  );
  const all = (await get(`${hour}&issues=all`)).body!;
  assert.deepEqual(
    all.data.map((r) => [r.issued_at, r.rsa_contracted_forecast_mw]),
    [
      ["2025-06-01T04:10:00+00:00", 25_036.125],
      ["2025-06-02T04:10:00+00:00", 26_012.125],
    ],
  );
  const asOf = (await get(`${hour}&as_of=2025-06-02T04:00:00Z`)).body!;
  assert.deepEqual(asOf.data, [all.data[0]]);
  assert.equal(asOf.meta.as_of, "2025-06-02T04:00:00+00:00");
  assert.equal(asOf.meta.last_issued, "2025-06-01T04:10:00+00:00");
  // An hour only the first issue forecast keeps its forecast as the newest for that hour.
  const early = (await get("start=2025-05-31T22:00:00Z&end=2025-05-31T23:00:00Z")).body!;
  assert.equal(early.data[0]!.issued_at, "2025-06-01T04:10:00+00:00");

  // Per UTC day: the mean and peak of each issue's hours of the day.
  const daily = (await get("start=2025-06-02&end=2025-06-03&interval=1d&issues=all")).body!;
  const hours = (base: number, first: number) =>
    Array.from({ length: 24 }, (_, h) => base + first + h + 0.125);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.deepEqual(
    daily.data.map((d) => [
      d.date,
      d.issued_at,
      d.avg_rsa_contracted_forecast_mw,
      d.peak_rsa_contracted_forecast_mw,
      d.hours,
    ]),
    [
      ["2025-06-02", "2025-06-01T04:10:00+00:00", mean(hours(25_000, 26)), 25_000 + 26 + 23 + 0.125, 24],
      ["2025-06-02", "2025-06-02T04:10:00+00:00", mean(hours(26_000, 2)), 26_000 + 2 + 23 + 0.125, 24],
    ],
  );

  const csv = await server.get(`/api/v1/forecasts/demand?${hour}&issues=all&format=csv`);
  assert.equal(
    await csv.text(),
    "ts,issued_at,rsa_contracted_forecast_mw,residual_forecast_mw\r\n" +
      "2025-06-02T10:00:00+00:00,2025-06-01T04:10:00+00:00,25036.125,24036.25\r\n" +
      "2025-06-02T10:00:00+00:00,2025-06-02T04:10:00+00:00,26012.125,25012.25\r\n",
  );
  assert.match(
    csv.headers.get("content-disposition")!,
    /forecasts\.demand_1h_20250602T100000Z_20250602T110000Z\.csv/,
  );

  const { res } = await get(hour);
  const etag = res.headers.get("etag")!;
  assert.equal(
    (await server.get(`/api/v1/forecasts/demand?${hour}`, { headers: { "If-None-Match": etag } })).status,
    304,
  );
  add(dir, forecastCsv(72, 27_000, at("2025-06-01T22:00:00Z")), at("2025-06-03T04:10:00Z"));
  const next = await server.get(`/api/v1/forecasts/demand?${hour}`, { headers: { "If-None-Match": etag } });
  assert.equal(next.status, 200, "a new issue changes the tag");
  assert.equal(((await next.json()) as Body).data[0]!.rsa_contracted_forecast_mw, 27_012.125);
});

test("the endpoint's errors: ranges of every issue, as_of outside the issues, unknown parameters", async (t) => {
  const dir = tempDir(t);
  const server = await startServer(t, dir);
  const detail = async (query: string) => {
    const res = await server.get(`/api/v1/forecasts/demand?${query}`);
    const body = (await res.json()) as { error: string; detail: string };
    return `${res.status} ${body.error} ${body.detail}`;
  };
  assert.match(
    await detail("start=2025-06-01&end=2025-06-02&as_of=2025-06-01T00:00:00Z"),
    /^400 invalid_parameter 'as_of' is before the first forecast issue: no issue is kept yet\.$/,
  );
  const empty = await server.get("/api/v1/forecasts/demand?start=2025-06-01&end=2025-06-02");
  assert.deepEqual(
    ((await empty.json()) as { data: unknown[] }).data,
    [],
    "no issue: no record, not an error",
  );
  add(dir, forecastCsv(24, 25_000), at("2025-06-01T04:10:00Z"));
  assert.match(
    await detail("start=2025-06-01&end=2025-06-02&as_of=2025-06-01T04:00:00Z"),
    /^400 invalid_parameter 'as_of' is before the first forecast issue: the first was seen at 2025-06-01T04:10:00\.000\+00:00\.$/,
  );
  assert.match(
    await detail("start=2025-06-01&end=2025-06-02&as_of=2999-01-01T00:00:00Z"),
    /^400 invalid_parameter 'as_of' is in the future/,
  );
  assert.match(
    await detail("start=2025-06-01&end=2025-07-03&issues=all"),
    /^400 range_too_large The range spans more than 31 days, the longest allowed with issues=all at interval 1h/,
  );
  assert.equal(
    (await server.get("/api/v1/forecasts/demand?start=2025-06-01&end=2025-07-03&issues=all&interval=1d"))
      .status,
    200,
  );
  assert.match(
    await detail("start=2025-06-01&end=2025-06-02&issues=newest"),
    /^400 invalid_parameter Query parameter 'issues' must be 'latest' or 'all', not 'newest'\.$/,
  );
  assert.match(
    await detail("start=2025-06-01&end=2025-06-02&issue=all"),
    /^400 unknown_parameter Unknown query parameter: 'issue'/,
  );
});

test("npm run forecast-issue keeps a download of one's own as the issue first seen at an instant", (t) => {
  const dir = tempDir(t);
  const file = writeFile(dir, NAME, forecastCsv(24, 25_000));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", "scripts/forecast-issue.ts", ...args], {
      cwd: join(import.meta.dirname, ".."),
      env: { ...process.env, DATA_DIR: dir },
      encoding: "utf8",
    });
  const kept = run("--issued-at", "2025-06-01T06:10:00+02:00", file);
  assert.equal(kept.status, 0, kept.stderr);
  assert.equal(
    kept.stdout,
    `${NAME}: a new forecast issue, of 2025-06-01T04:10:00.000Z: 24 target hours, 2025-05-31T22:00:00Z to 2025-06-01T21:00:00Z\n`,
  );
  assert.match(
    run("--issued-at", "2025-06-02T04:10:00Z", file).stdout,
    /the same forecast as the issue of 2025-06-01T04:10:00\.000Z, kept once/,
  );
  const older = run(
    "--issued-at",
    "2025-05-01T00:00:00Z",
    writeFile(dir, "other.csv", forecastCsv(24, 21_000)),
  );
  assert.equal(older.status, 1);
  assert.match(
    older.stderr,
    /^error: A forecast issue received at 2025-05-01T00:00:00\.000Z is not newer than the newest kept/,
  );
  const bad = run("--issued-at", "2025-06-03 04:10", file);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /is not an ISO 8601 instant with an offset/);
});
