/**
 * `src/sample/sample-forecast.ts`: the generated 3-month forecast of the sample store, kept through
 * the real forecast path, and never served beside real readings.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ForecastIssues } from "../src/forecasts/forecast-issues.ts";
import { generateSampleForecastIssues, SAMPLE_FORECAST_NAME } from "../src/sample/sample-forecast.ts";
import { expectedHour, when } from "../src/sample/sample-model.ts";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { exportCsv, startServer, tempDir, writeFile } from "./helpers.ts";

const HOUR = 3_600_000;
const NOW = Date.parse("2026-11-25T03:00:00Z");

test("one issue a day at 04:09 UTC, none after now, each 91 days from 00:00 SAST of its day", () => {
  const issues = generateSampleForecastIssues(NOW, 3);
  assert.deepEqual(
    issues.map((i) => new Date(i.receivedAt).toISOString()),
    ["2026-11-22T04:09:00.000Z", "2026-11-23T04:09:00.000Z", "2026-11-24T04:09:00.000Z"],
    "today's is not published before 04:09",
  );
  const lines = issues[2]!.text.trimEnd().split("\n");
  assert.equal(lines[0], "Date_Time_Hour_Beginning,RSA Contracted Forecast,Residual Forecast");
  assert.equal(lines.length, 1 + 2_184);
  assert.match(lines[1]!, /^2026-11-24 00:00:00,\d+\.\d{3},\d+\.\d{3}$/);
  assert.match(lines.at(-1)!, /^2027-02-22 23:00:00,/);
  assert.deepEqual(generateSampleForecastIssues(NOW, 3), issues, "the same clock, the same issues");
});

test("the forecast is the model's expected hour, off by an error that grows with the lead time", () => {
  const issues = generateSampleForecastIssues(NOW, 14);
  // The mean absolute error of each issue's first week and last week, against the expected demand.
  const errors = (from: number, to: number) => {
    let sum = 0;
    let n = 0;
    for (const { text } of issues) {
      for (const line of text
        .trimEnd()
        .split("\n")
        .slice(1 + from, 1 + to)) {
        const [stamp, contracted] = line.split(",");
        const local = Date.parse(`${stamp!.replace(" ", "T")}Z`);
        sum += Math.abs(Number(contracted) / expectedHour(when(local)).contracted - 1);
        n++;
      }
    }
    return sum / n;
  };
  const firstWeek = errors(0, 168);
  const lastWeek = errors(2_184 - 168, 2_184);
  assert.ok(firstWeek > 0.002 && firstWeek < 0.03, `first week ${firstWeek}`);
  assert.ok(lastWeek > firstWeek * 1.5, `last week ${lastWeek} against ${firstWeek}`);
  const [a, b] = issues.slice(-2).map((i) => i.text.split("\n")[30]);
  assert.notEqual(a, b, "two issues differ where they overlap");
});

test("kept as sample issues through the real path; beside real readings they are not served", async (t) => {
  const dir = tempDir(t);
  const generated = generateSampleExport({ lastHour: NOW - HOUR, days: 20 });
  ingestFiles([writeFile(tempDir(t), "sample.csv", generated)], { dir });
  const issues = new ForecastIssues(dir);
  for (const { text, receivedAt } of generateSampleForecastIssues(NOW, 2)) {
    issues.add(text, { name: SAMPLE_FORECAST_NAME, receivedAt, sha256: String(receivedAt), sample: true });
  }
  assert.equal(issues.sample, true);
  const server = await startServer(t, dir, { now: () => NOW });
  const range = "start=2026-11-24T12:00:00Z&end=2026-11-24T15:00:00Z";
  const sample = (await (await server.get(`/api/v1/forecasts/demand?${range}`)).json()) as {
    meta: { sample?: boolean };
    data: unknown[];
  };
  assert.deepEqual([sample.meta.sample, sample.data.length], [true, 3]);

  // A real ingest removes the sample readings; the generated forecast is then served no more.
  const real = exportCsv(["Residual Demand"], [["2026-11-24 10:00:00 AM", "25000.5"]]);
  ingestFiles([writeFile(tempDir(t), "ESK0001.csv", real)], { dir });
  const after = await server.get(`/api/v1/forecasts/demand?${range}`);
  assert.equal(after.headers.get("data-source"), null);
  const body = (await after.json()) as {
    meta: { sample?: boolean; last_issued: string | null };
    data: unknown[];
  };
  assert.deepEqual([body.meta.sample, body.meta.last_issued, body.data], [undefined, null, []]);
});
