import { test } from "node:test";
import assert from "node:assert/strict";
import { createKey } from "../src/keys/key-admin.ts";
import { exportCsv, ingestTexts, liveCsv, REAL_DATA_SKIP, startServer, tempDir, sast } from "./helpers.ts";
import { liveSnapshotStore } from "./fixture-stores.ts";

const COLUMNS = [
  "Residual Forecast",
  "Residual Demand",
  "Eskom OCGT Generation",
  "Dispatchable IPP OCGT",
  "Total RE",
  "Installed Eskom Capacity",
  "Total PCLF",
  "Total UCLF",
  "Total OCLF",
  "Manual Load_Reduction(MLR)",
];

// 30 days from 2024-03-01 UTC: total RE 1200 MW every hour, then on 2024-03-31 00:00 UTC a tight hour.
function fixture(): string {
  const start = Date.parse("2024-03-01T00:00:00Z");
  const rows: (string | number)[][] = [];
  for (let i = 0; i < 30 * 24; i++) {
    rows.push([sast(start + i * 3_600_000), 22_000, 22_000, 0, 0, 1_200, 44_000, 4_000, 9_000, 1_000, 0]);
  }
  // demand 27000, forecast 26000, OCGT 500 + 300, RE 900 (usual 1200), available 30000; MLR is ignored
  rows.push([
    sast(start + 30 * 24 * 3_600_000),
    26_000,
    27_000,
    500,
    300,
    900,
    44_000,
    4_000,
    9_000,
    1_000,
    5_000,
  ]);
  return exportCsv(COLUMNS, rows);
}

async function server(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  ingestTexts(dir, { "f.csv": fixture() });
  return startServer(t, dir);
}

const PATH = "/api/v1/features/grid-stress";
// This file checks v1, kept with version=v1 (test/http-grid-stress-v2.test.ts checks the default).
const V1 = `${PATH}?version=v1&`;

test("grid stress serves the documented envelope, value, band and version", async (t) => {
  const s = await server(t);
  const res = await s.get(`${V1}start=2024-03-31T00:00:00Z&end=2024-03-31T01:00:00Z`);
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.deepEqual(body.meta, {
    dataset: "features.grid_stress_index",
    interval: "1h",
    timezone: "UTC",
    schema_version: "1.0",
    derived: true,
    derivation_method: "computed_from_grid.system_state",
    feature: "grid_stress_index",
    version: "v1",
    start: "2024-03-31T00:00:00+00:00",
    end: "2024-03-31T01:00:00+00:00",
    last_available: "2024-03-31T00:00:00+00:00",
    data_delay: false,
  });
  // 0.2·0.5 + 0.25·0.4 + 0.35·0.5 + 0.1·0.25 + 0.1·min(1, 1000/27000/0.05)
  const expected = 0.2 * 0.5 + 0.25 * 0.4 + 0.35 * 0.5 + 0.1 * 0.25 + 0.1 * (1_000 / 27_000 / 0.05);
  assert.deepEqual(body.data, [
    {
      ts: "2024-03-31T00:00:00+00:00",
      value: Math.round(expected * 1000) / 1000,
      band: "moderate",
      version: "v1",
    },
  ]);
});

test("components=true adds every component, computed from stored readings and history", async (t) => {
  const s = await server(t);
  const body = await (await s.get(`${V1}start=2024-03-31&end=2024-03-31T01:00:00Z&components=true`)).json();
  assert.deepEqual(body.data[0].components, {
    residual_demand: 0.5,
    ocgt_ramp: 0.4,
    reserve_margin: 0.5,
    renewable_shortfall: 0.25,
    forecast_error: 0.741,
  });
  const off = await (await s.get(`${V1}start=2024-03-31&end=2024-03-31T01:00:00Z&components=false`)).json();
  assert.equal("components" in off.data[0], false);
});

test("renewable shortfall is null until seven days of history exist", async (t) => {
  const s = await server(t);
  const body = await (await s.get(`${V1}start=2024-03-01&end=2024-03-09&components=true`)).json();
  const first = body.data.filter((r: any) => r.ts.startsWith("2024-03-07"))[0];
  const later = body.data.filter((r: any) => r.ts.startsWith("2024-03-08"))[0];
  assert.equal(first.components.renewable_shortfall, null);
  assert.equal(later.components.renewable_shortfall, 0);
});

test("a bad components value is invalid_parameter", async (t) => {
  const s = await server(t);
  const res = await s.get(`${V1}start=2024-03-31&end=2024-04-01&components=yes`);
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    error: "invalid_parameter",
    detail: "Query parameter 'components' must be 'true' or 'false', not 'yes'.",
  });
  const other = await s.get(`/api/v1/grid/system-state?start=2024-03-31&end=2024-04-01&components=true`);
  assert.equal((await other.json()).error, "unknown_parameter", "components belongs to grid stress only");
});

test("1d records carry hours, mean and maximum value and the hours in each band", async (t) => {
  const s = await server(t);
  const body = await (await s.get(`${V1}start=2024-03-30&end=2024-04-01&interval=1d`)).json();
  assert.equal(body.meta.interval, "1d");
  assert.equal(body.meta.derivation_method, "computed_from_grid.system_state");
  const [d30, d31] = body.data;
  assert.deepEqual(Object.keys(d30), [
    "date",
    "hours",
    "avg_value",
    "max_value",
    "hours_low",
    "hours_moderate",
    "hours_high",
    "hours_critical",
  ]);
  assert.equal(d30.hours, 24);
  assert.equal(d30.hours_low, 24);
  // 22000 MW demand, no OCGT, margin (30000-22000)/30000 > 0.2, RE at its usual level, no miss: 0
  assert.equal(d30.max_value, 0);
  assert.equal(d31.hours, 1);
  assert.equal(d31.hours_moderate, 1);
  assert.equal(d31.avg_value, d31.max_value);
});

test("the features scope allows 3 requests a minute, apart from normalized_data", async (t) => {
  const dir = tempDir(t);
  const s = await startServer(t, dir);
  const { key } = createKey(dir, { name: "default limits", account: "a" });
  const headers = { "X-API-KEY": key };
  for (let i = 0; i < 3; i++) {
    const res = await s.raw(`${V1}start=2024-03-31&end=2024-04-01`, { headers });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("ratelimit-policy"), '"features";q=3;w=60');
  }
  const fourth = await s.raw(`${V1}start=2024-03-31&end=2024-04-01`, { headers });
  assert.equal(fourth.status, 429);
  assert.match(
    (await fourth.json()).detail,
    /^Request was throttled\. Expected available in (60|59) seconds\.$/,
  );
  assert.equal(fourth.headers.get("retry-after"), fourth.headers.get("ratelimit")!.split("t=")[1]);
  assert.equal(
    (await s.raw(`/api/v1/grid/system-state?start=2024-03-31&end=2024-04-01`, { headers })).status,
    200,
  );
});

test("with only live-format files (no capacity columns), reserve margin is null and the rest still count", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "Station_Build_Up.csv": liveCsv(
      [
        "Date_Time_Hour_Beginning",
        "Eskom_OCGT_Generation",
        "Dispatchable_IPP_OCGT",
        "Manual_Load_Reduction_MLR",
      ],
      [["2023-02-14 20:00:00", "1000", "0", "4000"]],
    ),
    "System_hourly_actual_and_forecasted_demand.csv": liveCsv(
      [
        "DateTimeKey",
        "Residual Forecast",
        "RSA Contracted Forecast",
        "Residual Demand",
        "RSA Contracted Demand",
      ],
      [["2023-02-14 20:00:00", "", "", "27000", "28000"]],
    ),
  });
  const s = await startServer(t, dir);
  const body = await (await s.get(`${V1}start=2023-02-14&end=2023-02-15&components=true`)).json();
  assert.equal(body.data.length, 1);
  assert.deepEqual(body.data[0].components, {
    residual_demand: 0.5,
    ocgt_ramp: 0.5,
    reserve_margin: null,
    renewable_shortfall: null,
    forecast_error: null,
  });
  assert.equal(body.data[0].value, 0.5, "renormalized over residual demand and OCGT");
});

test(
  "the real 2023 live files alone serve values with a null reserve margin",
  { skip: REAL_DATA_SKIP },
  async (t) => {
    const s = await startServer(t, tempDir(t), { storeDir: await liveSnapshotStore() });
    const body = await (
      await s.get(`${V1}start=2023-02-13T22:00:00Z&end=2023-02-19T22:00:00Z&components=true`)
    ).json();
    assert.equal(body.data.length, 6 * 24);
    for (const r of body.data) {
      assert.equal(r.components.reserve_margin, null);
      assert.equal(r.components.forecast_error, null);
      assert.notEqual(r.components.residual_demand, null);
      assert.notEqual(r.components.ocgt_ramp, null);
      assert.notEqual(r.value, null);
      assert.ok(r.value >= 0 && r.value <= 1);
    }
    // Forecast-only hours after the snapshot still get a record, with a null value.
    const future = await (await s.get(`${V1}start=2023-02-25&end=2023-02-26`)).json();
    assert.equal(future.data.length, 24);
    assert.ok(future.data.every((r: any) => r.value === null && r.band === null));
  },
);
