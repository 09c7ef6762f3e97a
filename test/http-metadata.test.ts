import { test } from "node:test";
import { VERSION } from "../src/version.ts";
import { markPullSucceeded } from "../src/pull/pull-state.ts";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createKey } from "../src/keys/key-admin.ts";
import { exportCsv, ingestTexts, startServer, tempDir } from "./helpers.ts";

test("/api/v1/datasets lists every dataset with fields, units, intervals, scope and the caller's limit", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "a.csv": exportCsv(
      ["Residual Demand", "Residual Forecast"],
      [
        ["2025-06-01 05:00:00 AM", "20000.0", "20100.0"],
        ["2025-06-03 09:00:00 PM", "21000.0", "20900.0"],
        ["2025-06-03 10:00:00 PM", "", "20800.0"],
      ],
    ),
  });
  const server = await startServer(t, dir);
  const { key } = createKey(dir, { name: "fund", account: "a", limits: { normalized_data: 500 } });
  assert.equal((await server.raw("/api/v1/datasets")).status, 401);
  const res = await server.raw("/api/v1/datasets", { headers: { "X-API-KEY": key } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("ratelimit-policy"), '"metadata";q=60;w=60');
  const body = await res.json();
  assert.deepEqual(
    body.datasets.map((d: any) => [d.id, d.path, d.scope, d.limit.requests, d.derived]),
    [
      ["grid.system_state", "/api/v1/grid/system-state", "normalized_data", 500, { "1h": true, "1d": true }],
      ["generation.mix", "/api/v1/generation/mix", "normalized_data", 500, { "1h": false, "1d": true }],
      [
        "features.grid_stress_index",
        "/api/v1/features/grid-stress",
        "features",
        3,
        { "1h": true, "1d": true },
      ],
      [
        "features.load_shedding_outlook",
        "/api/v1/features/load-shedding-outlook",
        "features",
        3,
        { "1h": true, "1d": true },
      ],
      [
        "grid.load_reduction",
        "/api/v1/grid/load-reduction",
        "normalized_data",
        500,
        { "1h": true, "1d": true },
      ],
      ["grid.availability", "/api/v1/grid/availability", "normalized_data", 500, { "1h": true, "1d": true }],
      [
        "grid.supply_margin",
        "/api/v1/grid/supply-margin",
        "normalized_data",
        500,
        { "1h": true, "1d": true },
      ],
      [
        "grid.pumped_storage",
        "/api/v1/grid/pumped-storage",
        "normalized_data",
        500,
        { "1h": false, "1d": true },
      ],
      [
        "grid.availability_weekly",
        "/api/v1/grid/availability/weekly",
        "normalized_data",
        500,
        { "1w": false },
      ],
      [
        "grid.availability_monthly",
        "/api/v1/grid/availability/monthly",
        "normalized_data",
        500,
        { "1mo": false },
      ],
      ["forecasts.demand", "/api/v1/forecasts/demand", "normalized_data", 500, { "1h": false, "1d": true }],
    ],
  );
  const forecast = body.datasets.at(-1);
  assert.deepEqual(forecast.parameters, ["start", "end", "interval", "format", "as_of", "issues"]);
  assert.deepEqual(
    forecast.fields["1h"].map((f: { name: string }) => f.name),
    ["ts", "issued_at", "rsa_contracted_forecast_mw", "residual_forecast_mw"],
  );
  const state = body.datasets[0];
  assert.deepEqual(state.intervals, ["1h", "1d", "1w", "1mo", "1y", "fy"]);
  assert.deepEqual(state.formats, ["json", "csv", "parquet"]);
  assert.equal(state.title, "System state");
  assert.equal(state.kind, "readings");
  assert.deepEqual(state.fields["1h"][1], {
    name: "residual_demand_mw",
    label: "Residual demand",
    type: "number",
    unit: "MW",
    nullable: true,
    description: "Residual demand: system demand less renewable generation (`Residual Demand`).",
    aggregates: ["mean", "min", "max", "sum"],
    source_columns: ["residual_demand"],
  });
  assert.equal(state.fields["1d"][1].name, "hours");
  assert.ok(body.datasets[2].parameters.includes("components"));
  assert.deepEqual(body.coverage, {
    first_hour: "2025-06-01T03:00:00+00:00",
    last_hour: "2025-06-03T20:00:00+00:00",
    last_available: "2025-06-03T19:00:00+00:00",
  });
  assert.match(body.last_ingest, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
});

test("the metadata scope is apart from the data scopes", async (t) => {
  const dir = tempDir(t);
  const server = await startServer(t, dir, { limits: { normalized_data: 1, features: 1, metadata: 2 } });
  const { key } = createKey(dir, { name: "x", account: "a" });
  const headers = { "X-API-KEY": key };
  assert.equal(
    (await server.raw("/api/v1/grid/system-state?start=2025-01-01&end=2025-01-02", { headers })).status,
    200,
  );
  assert.equal((await server.raw("/api/v1/datasets", { headers })).status, 200);
  assert.equal((await server.raw("/api/v1/datasets", { headers })).status, 200);
  assert.equal((await server.raw("/api/v1/datasets", { headers })).status, 429);
});

test("/healthz needs no key and reports the age of the newest hour", async (t) => {
  const dir = tempDir(t);
  const now = Date.parse("2025-06-03T21:30:00Z");
  const empty = await startServer(t, dir, { now: () => now });
  assert.deepEqual(await (await empty.raw("/healthz")).json(), {
    status: "stale",
    last_available: null,
    data_age_seconds: null,
    stale: true,
    stale_reason: "the store holds no actual hour",
    days_stored: 0,
    last_ingest: null,
    last_pull: null,
    last_pull_age_seconds: null,
    refused_files: [],
    sources: [],
    version: VERSION,
  });
  ingestTexts(dir, { "a.csv": exportCsv(["Residual Demand"], [["2025-06-03 09:00:00 PM", "21000.0"]]) });
  const res = await empty.raw("/healthz");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = await res.json();
  assert.equal(body.last_available, "2025-06-03T19:00:00+00:00");
  assert.equal(body.data_age_seconds, 2.5 * 3600);
  assert.equal(body.stale, false, "2.5 hours is fresh");
  assert.equal(body.days_stored, 1);
  markPullSucceeded(dir, now - 600_000);
  const later = await (await empty.raw("/healthz")).json();
  assert.equal(later.last_pull, "2025-06-03T21:20:00.000Z");
  assert.equal(later.last_pull_age_seconds, 600);
});

test("/healthz of a store no pull keeps goes by its newest hour's age: fresh for STALE_AFTER_H, then stale", async (t) => {
  // A store fed by hand (exports, no pull): no publication to judge, so the newest hour's age is
  // the measure, against the 36 hours a daily publication allows.
  const dir = tempDir(t);
  ingestTexts(dir, { "a.csv": exportCsv(["Residual Demand"], [["2025-06-03 11:00:00 PM", "21000.0"]]) });
  let now = 0;
  const server = await startServer(t, dir, { now: () => now });
  const health = async () =>
    (await server.raw("/healthz")).json() as Promise<{ status: string; stale: boolean }>;
  // Published 2025-06-04 04:09 UTC and pulled within the hour; the next publication is due
  // 2025-06-05 04:09, and an hourly pull takes it by 05:09: fresh all along.
  for (const at of ["2025-06-04T05:09:00Z", "2025-06-04T21:00:00Z", "2025-06-05T05:09:00Z"]) {
    now = Date.parse(at);
    assert.deepEqual(await health().then((b) => [b.status, b.stale]), ["ok", false], at);
  }
  // The publication of 2025-06-05 never comes: stale the same morning, hours before the next one.
  now = Date.parse("2025-06-05T09:00:01Z");
  const res = await server.raw("/healthz");
  assert.equal(res.status, 200, "a load balancer keeps the instance");
  const body = (await res.json()) as { status: string; stale: boolean };
  assert.equal(body.stale, true);
  assert.equal(body.status, "stale", "a monitor can alert on it");
});

test("/healthz is a 503 when the store cannot be read", async (t) => {
  const dir = tempDir(t);
  const server = await startServer(t, dir);
  // An unreadable manifest sends the server to the day files, and there is no folder to read.
  writeFileSync(join(dir, "manifest.json"), "{ broken");
  writeFileSync(join(dir, "readings"), "not a folder");
  const res = await server.raw("/healthz");
  assert.equal(res.status, 503);
  assert.deepEqual(await res.json(), { status: "unavailable", detail: "The data store cannot be read." });
  assert.equal(server.errors.length, 1);
});
