import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { exportCsv, ingestTexts, startServer, tempDir, sast, waitFor } from "./helpers.ts";

const COLUMNS = [
  "Residual Forecast",
  "Residual Demand",
  "International Exports",
  "International Imports",
  "Thermal Generation",
  "Nuclear Generation",
  "Eskom Gas Generation",
  "Eskom OCGT Generation",
  "Hydro Water Generation",
  "Pumped Water Generation",
  "Wind",
  "PV",
  "CSP",
  "Other RE",
  "Total RE",
];

/** Hour i after 2024-01-01T00:00Z has residual demand 20000 + i and OCGT output 10 * i. */
function fixtureRow(i: number): (string | number)[] {
  const t = Date.parse("2024-01-01T00:00:00Z") + i * 3_600_000;
  const re = 1000 + i;
  return [
    sast(t),
    `${20500 + i}.0`,
    `${20000 + i}.0`,
    "1500.5",
    "1200.0",
    "20000.0",
    "1800.0",
    "0.0",
    `${10 * i}.0`,
    "400.0",
    "300.0",
    `${re - 200}.0`,
    "100.0",
    "80.0",
    "20.0",
    `${re}.0`,
  ];
}

// Hours 0..47 of 2024-01-01/02 UTC, then 2024-01-03 only 00:00..05:00 (a partial day).
const HOURS = [...Array(48 + 6).keys()];

async function fixtureServer(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  ingestTexts(dir, { "fixture.csv": exportCsv(COLUMNS, HOURS.map(fixtureRow)) });
  return { dir, server: await startServer(t, dir) };
}

async function json(res: Response): Promise<any> {
  assert.equal(res.headers.get("content-type"), "application/json");
  return res.json();
}

test("a six-hour 1h range returns six records, the end instant excluded", async (t) => {
  const { server } = await fixtureServer(t);
  const res = await server.get(
    "/api/v1/grid/system-state?start=2024-01-01T06:00:00Z&end=2024-01-01T12:00:00Z",
  );
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.data.length, 6);
  assert.deepEqual(
    body.data.map((r: any) => r.ts),
    [6, 7, 8, 9, 10, 11].map((h) => `2024-01-01T${String(h).padStart(2, "0")}:00:00+00:00`),
  );
  assert.deepEqual(body.data[0], {
    ts: "2024-01-01T06:00:00+00:00",
    residual_demand_mw: 20006,
    residual_forecast_mw: 20506,
    total_re_mw: 1006,
    imports_mw: 1200,
    exports_mw: 1500.5,
    net_import_mw: -300.5,
    // generation = 20000 + 1800 + 0 + 60 + 400 + 300 + 806 + 100 + 80 + 20 = 23566
    renewable_share_pct: Math.round((100 * 1006 * 1000) / 23566) / 1000,
    ocgt_ramp_mw: 10,
    forecast_error_mw: -500,
  });
});

test("the system-state envelope carries every meta field of the contract", async (t) => {
  const { server } = await fixtureServer(t);
  const body = await json(
    await server.get("/api/v1/grid/system-state?start=2024-01-01T06:00:00Z&end=2024-01-01T07:00:00Z"),
  );
  assert.deepEqual(body.meta, {
    dataset: "grid.system_state",
    interval: "1h",
    timezone: "UTC",
    schema_version: "1.0",
    derived: true,
    derivation_method: "computed_from_source",
    start: "2024-01-01T06:00:00+00:00",
    end: "2024-01-01T07:00:00+00:00",
    last_available: "2024-01-03T05:00:00+00:00",
    data_delay: false,
  });
});

test("generation mix at 1h is not derived and serves the ten fuel fields", async (t) => {
  const { server } = await fixtureServer(t);
  const body = await json(
    await server.get("/api/v1/generation/mix?start=2024-01-01T01:00:00Z&end=2024-01-01T02:00:00Z"),
  );
  assert.equal(body.meta.dataset, "generation.mix");
  assert.equal(body.meta.interval, "1h");
  assert.equal(body.meta.derived, false);
  assert.equal("derivation_method" in body.meta, false);
  assert.deepEqual(body.data, [
    {
      ts: "2024-01-01T01:00:00+00:00",
      thermal_mw: 20000,
      nuclear_mw: 1800,
      utility_gas_mw: 0,
      utility_ocgt_mw: 10,
      hydro_water_mw: 400,
      pumped_water_gen_mw: 300,
      wind_mw: 801,
      pv_mw: 100,
      csp_mw: 80,
      other_re_mw: 20,
    },
  ]);
});

test("the ramp of a range's first hour at 00:00 UTC reads the previous day's last hour", async (t) => {
  const { server } = await fixtureServer(t);
  const body = await json(
    await server.get("/api/v1/grid/system-state?start=2024-01-02&end=2024-01-02T01:00:00Z"),
  );
  // hour 24 has OCGT 240, hour 23 (in the 2024-01-01 file) has 230
  assert.equal(body.data[0].ocgt_ramp_mw, 10);
});

test("the first stored hour has a null ramp: no previous reading exists", async (t) => {
  const { server } = await fixtureServer(t);
  const body = await json(
    await server.get("/api/v1/grid/system-state?start=2024-01-01&end=2024-01-01T01:00:00Z"),
  );
  assert.equal(body.data[0].ocgt_ramp_mw, null);
});

test("1d records aggregate whole UTC days and count their hours, 24 or fewer", async (t) => {
  const { server } = await fixtureServer(t);
  const body = await json(
    await server.get("/api/v1/grid/system-state?start=2024-01-01&end=2024-01-04&interval=1d"),
  );
  assert.equal(body.meta.derivation_method, "aggregation_from_1h");
  assert.equal(body.meta.interval, "1d");
  assert.deepEqual(
    body.data.map((d: any) => [d.date, d.hours]),
    [
      ["2024-01-01", 24],
      ["2024-01-02", 24],
      ["2024-01-03", 6],
    ],
  );
  const day2 = body.data[1];
  // hours 24..47: demand 20024..20047, mean 20035.5; ramps all +10 (hour 24 against hour 23)
  assert.equal(day2.avg_residual_demand_mw, 20035.5);
  assert.equal(day2.max_residual_demand_mw, 20047);
  assert.equal(day2.max_ocgt_ramp_mw, 10);
  assert.equal(day2.min_ocgt_ramp_mw, 10);
  assert.equal(day2.avg_forecast_error_mw, -500);
  assert.equal(day2.avg_net_import_mw, -300.5);
  assert.deepEqual(Object.keys(day2), [
    "date",
    "hours",
    "avg_residual_demand_mw",
    "max_residual_demand_mw",
    "avg_residual_forecast_mw",
    "avg_total_re_mw",
    "avg_imports_mw",
    "avg_exports_mw",
    "avg_net_import_mw",
    "renewable_share_pct",
    "max_ocgt_ramp_mw",
    "min_ocgt_ramp_mw",
    "avg_forecast_error_mw",
  ]);
});

test("1d takes the days whose 00:00 lies in the range, each over its whole day", async (t) => {
  const { server } = await fixtureServer(t);
  const body = await json(
    await server.get(
      "/api/v1/generation/mix?start=2024-01-01T05:00:00Z&end=2024-01-02T00:00:01Z&interval=1d",
    ),
  );
  assert.deepEqual(
    body.data.map((d: any) => [d.date, d.hours]),
    [["2024-01-02", 24]],
  );
  assert.equal(body.meta.derived, true);
  assert.equal(body.meta.derivation_method, "aggregation_from_1h");
  // OCGT 240..470 in steps of 10: mean 355
  assert.equal(body.data[0].avg_utility_ocgt_mw, 355);
});

test("offsets are converted to UTC and echoed in meta; fractions only when given", async (t) => {
  const { server } = await fixtureServer(t);
  const body = await json(
    await server.get(
      "/api/v1/grid/system-state?start=2024-01-01T04:00:00%2B02:00&end=2024-01-01T03:00:00.250Z",
    ),
  );
  assert.equal(body.meta.start, "2024-01-01T02:00:00+00:00");
  assert.equal(body.meta.end, "2024-01-01T03:00:00.250+00:00");
  // The hours beginning in [02:00, 03:00:00.250): 02:00 and 03:00.
  assert.deepEqual(
    body.data.map((r: any) => r.ts),
    ["2024-01-01T02:00:00+00:00", "2024-01-01T03:00:00+00:00"],
  );
});

test("an unencoded '+' in the offset, which arrives as a space, still reads as '+'", async (t) => {
  const { server } = await fixtureServer(t);
  const body = await json(
    await server.get(
      "/api/v1/grid/system-state?start=2024-01-01T04:00:00+02:00&end=2024-01-01T05:00:00+02:00",
    ),
  );
  assert.equal(body.meta.start, "2024-01-01T02:00:00+00:00");
  assert.equal(body.data.length, 1);
});

test("a range with no data gives an empty list, and data_delay when it reaches past the newest hour", async (t) => {
  const { server } = await fixtureServer(t);
  const body = await json(await server.get("/api/v1/grid/system-state?start=2030-01-01&end=2030-01-02"));
  assert.deepEqual(body.data, []);
  assert.equal(body.meta.data_delay, true);
  assert.equal(body.meta.last_available, "2024-01-03T05:00:00+00:00");
  const past = await json(await server.get("/api/v1/grid/system-state?start=2020-01-01&end=2020-01-02"));
  assert.deepEqual(past.data, []);
  assert.equal(past.meta.data_delay, false);
});

test("data_delay turns true exactly when the range reaches past the newest actual hour", async (t) => {
  const { server } = await fixtureServer(t);
  const upTo = async (end: string) =>
    (await json(await server.get(`/api/v1/grid/system-state?start=2024-01-03&end=${end}`))).meta.data_delay;
  assert.equal(await upTo("2024-01-03T06:00:00Z"), false);
  assert.equal(await upTo("2024-01-03T06:00:01Z"), true);
  // At 1d the whole day is covered, and 2024-01-03 has only 6 hours.
  const daily = await json(
    await server.get("/api/v1/grid/system-state?start=2024-01-03&end=2024-01-03T01:00:00Z&interval=1d"),
  );
  assert.equal(daily.meta.data_delay, true);
});

test("an empty store serves empty lists with a null last_available", async (t) => {
  const server = await startServer(t, tempDir(t));
  const body = await json(await server.get("/api/v1/generation/mix?start=2024-01-01&end=2024-01-02"));
  assert.deepEqual(body.data, []);
  assert.equal(body.meta.last_available, null);
  assert.equal(body.meta.data_delay, true);
});

test("a forecast-only hour is a system-state record with null actuals and no generation-mix record", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "forecast.csv": exportCsv(
      ["Residual Forecast", "Residual Demand", "Wind"],
      [["2030-01-01 02:00:00 AM", "21000.0", "", ""]],
    ),
  });
  const server = await startServer(t, dir);
  const state = await json(await server.get("/api/v1/grid/system-state?start=2030-01-01&end=2030-01-02"));
  assert.deepEqual(state.data, [
    {
      ts: "2030-01-01T00:00:00+00:00",
      residual_demand_mw: null,
      residual_forecast_mw: 21000,
      total_re_mw: null,
      imports_mw: null,
      exports_mw: null,
      net_import_mw: null,
      renewable_share_pct: null,
      ocgt_ramp_mw: null,
      forecast_error_mw: null,
    },
  ]);
  // A forecast is not an actual reading: nothing is available yet.
  assert.equal(state.meta.last_available, null);
  const mix = await json(await server.get("/api/v1/generation/mix?start=2030-01-01&end=2030-01-02"));
  assert.deepEqual(mix.data, []);
});

test("a running server sees a new ingest without a restart", async (t) => {
  const { dir, server } = await fixtureServer(t);
  const path = "/api/v1/grid/system-state?start=2024-01-01T06:00:00Z&end=2024-01-01T07:00:00Z";
  assert.equal((await json(await server.get(path))).data[0].residual_demand_mw, 20006);
  ingestTexts(dir, {
    "fix.csv": exportCsv(["Residual Demand"], [[sast(Date.parse("2024-01-01T06:00:00Z")), "30000.5"]]),
  });
  assert.equal((await json(await server.get(path))).data[0].residual_demand_mw, 30000.5);
  ingestTexts(dir, {
    "more.csv": exportCsv(["Residual Demand"], [[sast(Date.parse("2024-02-01T06:00:00Z")), "21000.0"]]),
  });
  const later = await json(await server.get("/api/v1/grid/system-state?start=2024-02-01&end=2024-02-02"));
  assert.equal(later.data.length, 1);
  assert.equal(later.meta.last_available, "2024-02-01T06:00:00+00:00");
});

test("HEAD answers like GET without a body", async (t) => {
  const { server } = await fixtureServer(t);
  const path = "/api/v1/grid/system-state?start=2024-01-01&end=2024-01-02";
  for (const encoding of ["identity", "gzip"]) {
    const headers = { "Accept-Encoding": encoding };
    const head = await server.get(path, { method: "HEAD", headers });
    const get = await server.get(path, { headers });
    const body = Buffer.from(await get.arrayBuffer());
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    for (const name of ["content-type", "content-length", "etag", "last-modified", "content-encoding"]) {
      assert.equal(head.headers.get(name), get.headers.get(name), `${encoding}: ${name}`);
    }
    if (encoding === "identity") assert.equal(Number(head.headers.get("content-length")), body.length);
  }
});

test("an unknown path is a 404", async (t) => {
  const { server } = await fixtureServer(t);
  for (const path of ["/", "/api/v1/grid", "/api/v2/grid/system-state", "/api/v1/grid/system-state/extra"]) {
    const res = await server.get(path);
    assert.equal(res.status, 404, path);
    assert.deepEqual(await json(res), { detail: "Not found." });
  }
});

test("a trailing slash reaches the same endpoint", async (t) => {
  const { server } = await fixtureServer(t);
  const res = await server.get("/api/v1/generation/mix/?start=2024-01-01&end=2024-01-01T01:00:00Z");
  assert.equal(res.status, 200);
});

test("a wrong method is a 405 with Allow, checked before validation", async (t) => {
  const { server } = await fixtureServer(t);
  for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
    const res = await server.get("/api/v1/grid/system-state", { method });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET, HEAD");
    assert.deepEqual(await json(res), { detail: `Method "${method}" not allowed.` });
  }
});

test("a failure inside the service is a 500 that does not leak its cause", async (t) => {
  const { dir, server } = await fixtureServer(t);
  // A hand-edited day file whose hash was edited into the manifest too, and no pack: the server
  // trusts the file, parses it, and fails.
  rmSync(join(dir, "readings", "2024-01.pack"));
  const edited = '{"ts":"2024-01-02T00:00:00Z","secret_cause":1}\n';
  writeFileSync(join(dir, "readings", "2024-01-02.jsonl"), edited);
  rehash(dir, "2024-01-02", edited);
  const res = await server.get("/api/v1/grid/system-state?start=2024-01-02&end=2024-01-02T01:00:00Z");
  assert.equal(res.status, 500);
  const text = await res.text();
  assert.equal(text, JSON.stringify({ detail: "Internal server error." }));
  assert.equal(server.errors.length, 1);
  assert.match(String(server.errors[0]), /unknown column "secret_cause"/);
});

test("every response carries a request id and is logged as one JSON line", async (t) => {
  const { server } = await fixtureServer(t);
  const res = await server.get("/api/v1/grid/system-state?start=2024-01-01&end=2024-01-01T01:00:00Z");
  await res.arrayBuffer();
  const id = res.headers.get("x-request-id");
  assert.match(id!, /^[0-9a-f]{12}-[0-9a-z]+$/, "12 hex digits fixed per process, then a counter");
  const next = (await server.get("/healthz")).headers.get("x-request-id");
  assert.notEqual(next, id, "every request gets its own");
  await new Promise((resolve) => setImmediate(resolve));
  const entry = server.logs.find((l) => l.request_id === id)!;
  assert.equal(entry.method, "GET");
  assert.equal(entry.path, "/api/v1/grid/system-state");
  assert.equal(entry.status, 200);
  assert.equal(typeof entry.duration_ms, "number");
  const echoed = await server.get("/nowhere", { headers: { "X-Request-Id": "trace-42" } });
  assert.equal(echoed.headers.get("x-request-id"), "trace-42");
});

test("a request whose client goes away still gets its access-log line", async (t) => {
  // A 2 MB body cannot all be handed to the socket before the client leaves.
  const dir = tempDir(t);
  ingestTexts(dir, { "s.csv": generateSampleExport({ firstDay: "2024-01-01", days: 370 }) });
  const server = await startServer(t, dir);
  const { request } = await import("node:http");
  await new Promise<void>((resolve) => {
    const req = request(`${server.url}/api/v1/grid/system-state?start=2024-01-01&end=2024-12-31`, {
      headers: { "X-API-KEY": server.key, "X-Request-Id": "gone-early", "Accept-Encoding": "identity" },
    });
    req.on("response", (res) => {
      res.once("data", () => {
        res.destroy();
        resolve();
      });
    });
    req.on("error", () => resolve());
    req.end();
  });
  await waitFor(() => server.logs.some((l) => l.request_id === "gone-early"), "the early leaver's log line");
});

/** Records `text` as the content of day `key` in the manifest, as if an ingest had written it. */
function rehash(dir: string, key: string, text: string): void {
  const path = join(dir, "manifest.json");
  const manifest = JSON.parse(readFileSync(path, "utf8"));
  manifest.days[key].hash = createHash("sha256").update(text).digest("hex").slice(0, 32);
  // Replaced by a rename, as ingest replaces it.
  writeFileSync(path + ".new", JSON.stringify(manifest));
  renameSync(path + ".new", path);
}
