/**
 * Grid stress v2, the default: each component and the value recomputed here by hand from the
 * formula docs/api.md publishes (its coefficients read from the page, not the code), the answer
 * never read, missing inputs, and the endpoint's version parameter.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tableCells } from "./markdown-tables.ts";
import { STRESS_V2, V2_COMPONENTS } from "../src/features/stress-v2.ts";
import { exportCsv, ingestTexts, sast, startServer, tempDir } from "./helpers.ts";

const HOUR = 3_600_000;
const START = Date.parse("2024-05-01T00:00:00Z");
// The hour judged: day 9's first, after seven days of full supply and one day short of it.
const AT = START + 8 * 24 * HOUR;
const PATH = "/api/v1/features/grid-stress";

const COLUMNS = [
  "Residual Forecast",
  "Thermal Generation",
  "Nuclear Generation",
  "Eskom Gas Generation",
  "Eskom OCGT Generation",
  "Hydro Water Generation",
  "Pumped Water Generation",
  "Dispatchable IPP OCGT",
  "International Imports",
  "ILS Usage",
  "IOS Excl ILS and MLR",
  "Drakensberg Gen Unit Hours",
  "Palmiet Gen Unit Hours",
  "Ingula Gen Unit Hours",
  "Residual Demand",
  "Manual Load_Reduction(MLR)",
];

/**
 * Nine days: 30,000 MW supplied by coal and no diesel for seven, then 27,000 MW of coal and
 * 1,000 + 500 MW of diesel; at AT a forecast of 29,925 MW, reservoirs half, full and empty, and
 * 300 + 200 MW of interruptible load. `answer` sets residual demand and MLR, which v2 never reads.
 */
function fixture(answer: { demand: number; mlr: number }, drop: readonly string[] = []): string {
  const rows: (string | number)[][] = [];
  for (let i = 0; i <= 8 * 24 + 5; i++) {
    const hour = START + i * HOUR;
    const short = i >= 7 * 24;
    const at = hour === AT;
    const cells: Record<string, number | string> = {
      "Residual Forecast": at ? 29_925 : 28_000,
      "Thermal Generation": short ? 27_000 : 30_000,
      "Nuclear Generation": 0,
      "Eskom Gas Generation": 0,
      "Eskom OCGT Generation": short ? 1_000 : 0,
      "Hydro Water Generation": 0,
      "Pumped Water Generation": 0,
      "Dispatchable IPP OCGT": short ? 500 : 0,
      "International Imports": 0,
      "ILS Usage": at ? 300 : 0,
      "IOS Excl ILS and MLR": at ? 200 : 0,
      "Drakensberg Gen Unit Hours": 51,
      "Palmiet Gen Unit Hours": 58.7,
      "Ingula Gen Unit Hours": 0,
      "Residual Demand": at ? answer.demand : 28_000,
      "Manual Load_Reduction(MLR)": at ? answer.mlr : 0,
    };
    for (const name of drop) cells[name] = "";
    rows.push([sast(hour), ...COLUMNS.map((name) => cells[name]!)]);
  }
  return exportCsv(COLUMNS, rows);
}

async function serve(t: Parameters<typeof tempDir>[0], text: string) {
  const dir = tempDir(t);
  const summary = ingestTexts(dir, { "v2.csv": text });
  assert.deepEqual(summary.failures, []);
  return startServer(t, dir);
}

/** The coefficients and means as docs/api.md publishes them. */
function published(): { coefficient: Record<string, number>; whenMissing: Record<string, number> } {
  const page = readFileSync(join(import.meta.dirname, "..", "docs", "api.md"), "utf8");
  const from = page.indexOf("<!-- stress: v2-formula -->");
  const rows = tableCells(page.slice(from, page.indexOf("<!-- /stress -->", from))).slice(1);
  const name = (cell: string) => cell.replaceAll("`", "");
  return {
    coefficient: Object.fromEntries(rows.map((r) => [name(r[0]!), Number(r[1])])),
    whenMissing: Object.fromEntries(
      rows.filter((r) => r[2] !== "never").map((r) => [name(r[0]!), Number(r[2])]),
    ),
  };
}

const EXPECTED = {
  diesel_day: 0.75, // 24 hours of 1,500 MW over 2,000
  diesel_week: (25 * 1_500) / 168 / 2_000, // 25 of the 168 hours burned diesel
  supply_gap: 0.5 + (29_925 - 28_500) / 28_500 / 0.2, // the day before supplied at most 28,500
  fleet_decline: (30_000 - 28_500) / 30_000 / 0.1,
  pumped_storage_low: 1 - (51 / 102 + 58.7 / 58.7 + 0 / 67) / 3,
  interruptible_load: 0.5,
  evening_peak: 0, // 02:00 SAST
};

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const round3 = (x: number) => Math.round(x * 1000) / 1000;

test("v2 is the default: each component and the value are the published formula's, recomputed by hand", async (t) => {
  const s = await serve(t, fixture({ demand: 30_000, mlr: 0 }));
  const at = new Date(AT).toISOString();
  const res = await s.get(`${PATH}?start=${at}&end=${new Date(AT + HOUR).toISOString()}&components=true`);
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.meta.version, STRESS_V2);
  assert.equal(body.meta.derivation_method, "computed_from_source");
  const [record] = body.data;
  assert.equal(record.version, "v2");
  for (const name of V2_COMPONENTS) assert.equal(record.components[name], round3(EXPECTED[name]), name);
  const { coefficient } = published();
  const z = V2_COMPONENTS.reduce(
    (sum, name) => sum + coefficient[name]! * EXPECTED[name],
    coefficient.intercept!,
  );
  assert.equal(record.value, round3(sigmoid(z)));
  assert.equal(
    record.band,
    record.value >= 0.8
      ? "critical"
      : record.value >= 0.6
        ? "high"
        : record.value >= 0.3
          ? "moderate"
          : "low",
  );
});

test("v2 never reads the answer: residual demand and manual load reduction change nothing", async (t) => {
  const range = `start=${new Date(AT - 2 * HOUR).toISOString()}&end=${new Date(AT + 3 * HOUR).toISOString()}&components=true`;
  const calm = await (
    await (await serve(t, fixture({ demand: 20_000, mlr: 0 }))).get(`${PATH}?${range}`)
  ).json();
  const shed = await (
    await (await serve(t, fixture({ demand: 36_000, mlr: 4_000 }))).get(`${PATH}?${range}`)
  ).json();
  assert.equal(calm.data.length, 5);
  assert.deepEqual(shed.data, calm.data);
});

test("a missing input makes its component null and counts at its published mean; no input at all, no value", async (t) => {
  const noStorage = fixture({ demand: 30_000, mlr: 0 }, ["Drakensberg Gen Unit Hours"]);
  const s = await serve(t, noStorage);
  const range = `start=${new Date(AT).toISOString()}&end=${new Date(AT + HOUR).toISOString()}&components=true`;
  const [record] = (await (await s.get(`${PATH}?${range}`)).json()).data;
  assert.equal(record.components.pumped_storage_low, null);
  const { coefficient, whenMissing } = published();
  const z = V2_COMPONENTS.reduce(
    (sum, name) =>
      sum + coefficient[name]! * (name === "pumped_storage_low" ? whenMissing[name]! : EXPECTED[name]),
    coefficient.intercept!,
  );
  assert.equal(record.value, round3(sigmoid(z)));

  // The forecast alone, with no day before it: an hour with an input, but no component to compute.
  const alone = await serve(t, exportCsv(["Residual Forecast"], [[sast(AT), 30_000]]));
  const [hour] = (await (await alone.get(`${PATH}?${range}`)).json()).data;
  assert.equal(hour.value, null);
  assert.equal(hour.band, null);
  assert.equal(hour.components.supply_gap, null);
  assert.equal(hour.components.evening_peak, 0, "the clock is never missing");
  // Only the answer: no input of the formula, so no record.
  const answer = await serve(
    t,
    exportCsv(["Residual Demand", "Manual Load_Reduction(MLR)"], [[sast(AT), 30_000, 1_000]]),
  );
  assert.deepEqual((await (await answer.get(`${PATH}?${range}`)).json()).data, []);
});

test("version picks the formula, each record and meta name it, and anything else is invalid_parameter", async (t) => {
  const s = await serve(t, fixture({ demand: 30_000, mlr: 0 }));
  const range = `start=${new Date(AT).toISOString()}&end=${new Date(AT + HOUR).toISOString()}`;
  const v2 = await s.get(`${PATH}?${range}&version=v2`);
  const v1 = await s.get(`${PATH}?${range}&version=v1&components=true`);
  const v1Body = await v1.json();
  assert.equal(v1Body.meta.version, "v1");
  assert.equal(v1Body.meta.derivation_method, "computed_from_grid.system_state");
  assert.equal(v1Body.data[0].version, "v1");
  assert.ok("ocgt_ramp" in v1Body.data[0].components && !("diesel_day" in v1Body.data[0].components));
  assert.notEqual(v2.headers.get("etag"), v1.headers.get("etag"), "each version has its own validator");
  const bad = await s.get(`${PATH}?${range}&version=v3`);
  assert.equal(bad.status, 400);
  assert.deepEqual(await bad.json(), {
    error: "invalid_parameter",
    detail: "Query parameter 'version' must be 'v2' or 'v1', not 'v3'.",
  });
});

test("the catalog and the OpenAPI document describe the version parameter and both versions' meta", async (t) => {
  const s = await serve(t, fixture({ demand: 30_000, mlr: 0 }));
  const catalog = await (await s.get("/api/v1/datasets")).json();
  const entry = catalog.datasets.find((d: { id: string }) => d.id === "features.grid_stress_index");
  assert.ok(JSON.stringify(entry).includes("version"));
  const doc = await (await s.get("/api/v1/openapi.json")).json();
  const get = doc.paths[PATH].get;
  const version = get.parameters.find((p: { name: string }) => p.name === "version");
  assert.deepEqual(version.schema.enum, ["v2", "v1"]);
  assert.match(get.description, /Formula \(version `v2`, the default\)/);
  assert.match(get.description, /Formula \(version `v1`, with `version=v1`\)/);
});
