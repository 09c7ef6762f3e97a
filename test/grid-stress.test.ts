import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DEMAND_LIGHT_MW,
  DEMAND_PEAK_MW,
  forecastErrorComponent,
  MARGIN_COMFORTABLE,
  OCGT_FULL_MW,
  ocgtComponent,
  renewableShortfallComponent,
  reserveMarginComponent,
  residualDemandComponent,
  stressBand,
  stressComponents,
  type StressInputs,
  stressValue,
  STRESS_WEIGHTS,
} from "../src/features/stress-formula.ts";
import { rocAuc } from "../src/features/evaluation.ts";
import {
  stressFormulaTable,
  stressReference,
  stressTables,
  withStressTables,
} from "../src/features/stress-reference.ts";
import { gridStress } from "../src/datasets/grid-stress.ts";
import { buildOpenApi } from "../src/http/openapi.ts";
import { DATASETS, isHourly } from "../src/datasets/registry.ts";
const HOURLY_DATASETS = DATASETS.filter(isHourly);
import { tableCells } from "./markdown-tables.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const BASE: StressInputs = {
  residualDemand: 27_000,
  residualForecast: 26_000,
  installedCapacity: 44_000,
  plannedOutage: 4_000,
  unplannedOutage: 9_000,
  otherOutage: 1_000,
  liveAvailable: null,
  utilityOcgt: 500,
  ippOcgt: 300,
  totalRe: 900,
  usualRe: 1_200,
};
const close = (a: number | null, b: number) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-12, `${a} vs ${b}`);

test("the weights sum to 1 and the constants are ordered", () => {
  assert.equal(
    Object.values(STRESS_WEIGHTS)
      .reduce((a, b) => a + b, 0)
      .toFixed(12),
    "1.000000000000",
  );
  assert.ok(DEMAND_LIGHT_MW < DEMAND_PEAK_MW && MARGIN_COMFORTABLE > 0 && OCGT_FULL_MW > 0);
});

test("reserve margin against hand-computed values, boundaries included", () => {
  // available = 44000 - 4000 - 9000 - 1000 = 30000; margin = 3000 / 30000 = 0.1 → (0.2 - 0.1) / 0.2
  close(reserveMarginComponent(BASE), 0.5);
  close(reserveMarginComponent({ ...BASE, residualDemand: 24_000 }), 0); // margin exactly 0.2
  close(reserveMarginComponent({ ...BASE, residualDemand: 20_000 }), 0); // more spare than comfortable
  close(reserveMarginComponent({ ...BASE, residualDemand: 30_000 }), 1); // margin 0
  close(reserveMarginComponent({ ...BASE, residualDemand: 33_000 }), 1); // short
  close(reserveMarginComponent({ ...BASE, unplannedOutage: 40_000 }), 1); // nothing available
  assert.equal(reserveMarginComponent({ ...BASE, otherOutage: null }), null);
  assert.equal(reserveMarginComponent({ ...BASE, installedCapacity: null }), null);
});

test("without the export's columns the reserve margin reads the live file's available capacity", () => {
  const live = { ...BASE, installedCapacity: null, liveAvailable: 30_000 };
  close(reserveMarginComponent(live), 0.5); // the same 30000 available, from the capacity file
  close(reserveMarginComponent({ ...live, liveAvailable: 40_000 }), 0); // margin 0.325: comfortable
  close(reserveMarginComponent({ ...live, liveAvailable: 28_000 }), (0.2 - 1_000 / 28_000) / 0.2);
  // The export's columns win where an hour has both: they are what the index was built on.
  close(reserveMarginComponent({ ...BASE, liveAvailable: 40_000 }), 0.5);
  assert.equal(reserveMarginComponent({ ...live, liveAvailable: null }), null);
});

test("OCGT dispatch against hand-computed values", () => {
  close(ocgtComponent(BASE), 800 / 2_000);
  close(ocgtComponent({ ...BASE, utilityOcgt: 0, ippOcgt: 0 }), 0);
  close(ocgtComponent({ ...BASE, utilityOcgt: 1_500, ippOcgt: 500 }), 1);
  close(ocgtComponent({ ...BASE, utilityOcgt: 2_400, ippOcgt: 1_000 }), 1);
  assert.equal(ocgtComponent({ ...BASE, ippOcgt: null }), null);
});

test("residual demand against hand-computed values", () => {
  close(residualDemandComponent(BASE), 0.5);
  close(residualDemandComponent({ ...BASE, residualDemand: 22_000 }), 0);
  close(residualDemandComponent({ ...BASE, residualDemand: 18_000 }), 0);
  close(residualDemandComponent({ ...BASE, residualDemand: 32_000 }), 1);
  assert.equal(residualDemandComponent({ ...BASE, residualDemand: null }), null);
});

test("forecast error counts only demand above its forecast", () => {
  // (27000 - 26000) / 27000 / 0.05
  close(forecastErrorComponent(BASE), 1_000 / 27_000 / 0.05);
  close(forecastErrorComponent({ ...BASE, residualForecast: 28_000 }), 0);
  close(forecastErrorComponent({ ...BASE, residualForecast: 20_000 }), 1);
  assert.equal(forecastErrorComponent({ ...BASE, residualForecast: null }), null);
  assert.equal(forecastErrorComponent({ ...BASE, residualDemand: 0 }), null);
});

test("renewable shortfall against its usual level", () => {
  close(renewableShortfallComponent(BASE), 300 / 1_200);
  close(renewableShortfallComponent({ ...BASE, totalRe: 1_500 }), 0);
  close(renewableShortfallComponent({ ...BASE, totalRe: 0 }), 1);
  assert.equal(renewableShortfallComponent({ ...BASE, usualRe: null }), null);
  assert.equal(renewableShortfallComponent({ ...BASE, usualRe: 0 }), null);
});

test("the value is the weighted mean of the components present", () => {
  const c = stressComponents(BASE);
  const expected =
    0.2 * 0.5 + 0.25 * 0.4 + 0.35 * 0.5 + 0.1 * 0.25 + 0.1 * Math.min(1, 1_000 / 27_000 / 0.05);
  close(stressValue(c), expected);
});

test("a missing input nulls its component and the other weights are renormalized", () => {
  const c = stressComponents({ ...BASE, installedCapacity: null, residualForecast: null, usualRe: null });
  assert.equal(c.reserve_margin, null);
  assert.equal(c.forecast_error, null);
  assert.equal(c.renewable_shortfall, null);
  close(stressValue(c), (0.2 * 0.5 + 0.25 * 0.4) / (0.2 + 0.25));
  const none = stressComponents({
    residualDemand: null,
    residualForecast: 20_000,
    installedCapacity: null,
    plannedOutage: null,
    unplannedOutage: null,
    otherOutage: null,
    liveAvailable: null,
    utilityOcgt: null,
    ippOcgt: null,
    totalRe: null,
    usualRe: null,
  });
  assert.equal(stressValue(none), null, "null only when no component can be computed");
});

test("the value never falls when any stress driver worsens (property, 5,000 random hours)", () => {
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const pick = (lo: number, hi: number) => (random() < 0.08 ? null : lo + (hi - lo) * random());
  // Each driver and the direction in which it worsens the grid.
  const drivers: [keyof StressInputs, number][] = [
    ["residualDemand", +1],
    ["residualForecast", -1],
    ["installedCapacity", -1],
    ["plannedOutage", +1],
    ["unplannedOutage", +1],
    ["otherOutage", +1],
    ["liveAvailable", -1],
    ["utilityOcgt", +1],
    ["ippOcgt", +1],
    ["totalRe", -1],
  ];
  for (let i = 0; i < 5_000; i++) {
    const inputs: StressInputs = {
      residualDemand: pick(15_000, 38_000),
      residualForecast: pick(15_000, 38_000),
      installedCapacity: pick(30_000, 50_000),
      plannedOutage: pick(0, 8_000),
      unplannedOutage: pick(3_000, 20_000),
      otherOutage: pick(0, 4_000),
      liveAvailable: pick(20_000, 40_000),
      utilityOcgt: pick(0, 2_500),
      ippOcgt: pick(0, 1_000),
      totalRe: pick(0, 6_000),
      usualRe: pick(1, 6_000),
    };
    const before = stressValue(stressComponents(inputs));
    for (const [name, direction] of drivers) {
      if (inputs[name] === null) continue;
      const step = direction * (1 + random() * 3_000);
      const worse = { ...inputs, [name]: inputs[name] + step };
      const after = stressValue(stressComponents(worse));
      assert.ok(after! >= before! - 1e-12, `${name} ${direction > 0 ? "up" : "down"}: ${before} → ${after}`);
      for (const [component, value] of Object.entries(stressComponents(worse))) {
        const was = stressComponents(inputs)[component as keyof typeof STRESS_WEIGHTS];
        if (value !== null && was !== null)
          assert.ok(value >= was - 1e-12, `${component} fell when ${name} worsened`);
      }
    }
  }
});

test("bands begin at 0.3, 0.6 and 0.8", () => {
  const cases: [number | null, string | null][] = [
    [0, "low"],
    [0.299, "low"],
    [0.3, "moderate"],
    [0.599, "moderate"],
    [0.6, "high"],
    [0.799, "high"],
    [0.8, "critical"],
    [1, "critical"],
    [null, null],
  ];
  for (const [value, band] of cases) assert.equal(stressBand(value), band, String(value));
});

test("ROC AUC: perfect, inverted, chance and ties", () => {
  assert.equal(rocAuc([0.1, 0.2, 0.8, 0.9], [false, false, true, true]), 1);
  assert.equal(rocAuc([0.9, 0.8, 0.2, 0.1], [false, false, true, true]), 0);
  assert.equal(rocAuc([0.5, 0.5, 0.5, 0.5], [false, true, false, true]), 0.5);
  // one positive at 0.4 against negatives 0.1, 0.4, 0.6: beats one, ties one, loses one
  assert.equal(rocAuc([0.1, 0.4, 0.6, 0.4], [false, false, false, true]), 0.5);
  assert.ok(Number.isNaN(rocAuc([1, 2], [false, false])));
  assert.throws(() => rocAuc([1], []), RangeError);
});

test("the published formula is the computed one: docs/api.md's table and /docs's are written from the constants", () => {
  const table = stressFormulaTable();
  const page = readFileSync(join(import.meta.dirname, "..", "docs", "api.md"), "utf8");
  // Every generated block: v2's formula, evaluation and calibration, and v1's formula.
  for (const [name, generated] of Object.entries(stressTables())) {
    const start = page.indexOf(`<!-- stress: ${name} -->`);
    assert.ok(start > 0, `docs/api.md has the ${name} table`);
    const inPage = page.slice(start, page.indexOf("<!-- /stress -->", start));
    assert.deepEqual(
      tableCells(inPage),
      tableCells(generated),
      `docs/api.md's ${name} table is stale: npm run field-tables`,
    );
  }
  assert.equal(withStressTables(page), withStressTables(withStressTables(page)), "rewriting is stable");
  assert.throws(
    () => withStressTables("<!-- stress: v9 -->\n<!-- /stress -->"),
    /no stress table is named v9/,
  );
  // Each constant is in the text, so a changed one changes what is published.
  for (const constant of [DEMAND_LIGHT_MW, DEMAND_PEAK_MW, OCGT_FULL_MW, MARGIN_COMFORTABLE.toFixed(2)]) {
    assert.ok(table.includes(String(constant)), `the table shows ${constant}`);
  }
  for (const [name, weight] of Object.entries(STRESS_WEIGHTS)) {
    assert.ok(table.includes(`\`${name}\` (${weight.toFixed(2)})`), name);
  }
  const routes = HOURLY_DATASETS.map((dataset) => ({
    ...dataset,
    methods: ["GET"],
    handler: () => {},
    doc: { dataset },
  }));
  const doc = buildOpenApi(routes, {}) as { paths: Record<string, { get: { description: string } }> };
  const operation = doc.paths["/api/v1/features/grid-stress"]!.get;
  assert.ok(operation.description.startsWith(stressReference()), "the /docs entry opens with the formula");
  // The catalog's reader has this service, not its repository: the description points to /docs only.
  assert.match(gridStress.description, /Its formula is published in this endpoint's entry at \/docs\.$/);
});
