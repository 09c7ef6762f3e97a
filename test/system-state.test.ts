import { test } from "node:test";
import assert from "node:assert/strict";
import { columnIndex } from "../src/source/columns.ts";
import { emptyReading, type Reading } from "../src/source/reading.ts";
import {
  aggregateSystemStateDays,
  systemStateHour,
  type SystemStateHour,
} from "../src/datasets/system-state.ts";
import { aggregateGenerationMixDays, generationMixHour } from "../src/datasets/generation-mix.ts";
import { round3 } from "../src/datasets/source-fields.ts";

function reading(values: Record<string, number>): Reading {
  const r = emptyReading();
  for (const [name, value] of Object.entries(values)) {
    const i = columnIndex(name);
    assert.ok(i >= 0, name);
    r[i] = value;
  }
  return r;
}

const GENERATION = {
  thermal_generation: 20000,
  nuclear_generation: 1800,
  eskom_gas_generation: 0,
  eskom_ocgt_generation: 500,
  hydro_water_generation: 400,
  pumped_water_generation: 300,
  wind: 1000,
  pv: 600,
  csp: 150,
  other_re: 50,
};

test("hourly derived fields match hand-computed values", () => {
  const now = reading({
    ...GENERATION,
    residual_demand: 24000,
    residual_forecast: 23500.5,
    total_re: 1800,
    international_imports: 1200,
    international_exports: 1500.25,
  });
  const before = reading({ eskom_ocgt_generation: 120 });
  const state = systemStateHour(now, before)!;
  assert.equal(state.net_import_mw, 1200 - 1500.25);
  // generation = 20000+1800+0+500+400+300+1000+600+150+50 = 24800
  assert.equal(state.renewable_share_pct, (100 * 1800) / 24800);
  assert.equal(round3(state.renewable_share_pct), 7.258);
  assert.equal(state.ocgt_ramp_mw, 380);
  assert.equal(state.forecast_error_mw, 499.5);
});

test("total RE falls back to wind + PV + CSP + other RE when the column is absent", () => {
  const state = systemStateHour(reading({ wind: 1000, pv: 600.5, csp: 150, other_re: 49.5 }), undefined)!;
  assert.equal(state.total_re_mw, 1800);
  const partial = systemStateHour(reading({ wind: 1000, residual_demand: 20000 }), undefined)!;
  assert.equal(partial.total_re_mw, null);
});

test("any null input gives a null derived value, and a zero denominator gives null", () => {
  const state = systemStateHour(reading({ residual_demand: 20000, international_imports: 1000 }), undefined)!;
  assert.equal(state.net_import_mw, null);
  assert.equal(state.renewable_share_pct, null);
  assert.equal(state.ocgt_ramp_mw, null);
  assert.equal(state.forecast_error_mw, null);
  const zero = Object.fromEntries(Object.keys(GENERATION).map((k) => [k, 0]));
  assert.equal(systemStateHour(reading({ ...zero, total_re: 0 }), undefined)!.renewable_share_pct, null);
});

test("the OCGT ramp is null when the previous hour has no reading", () => {
  const state = systemStateHour(reading({ eskom_ocgt_generation: 100, residual_demand: 1 }), undefined)!;
  assert.equal(state.ocgt_ramp_mw, null);
});

test("an hour without any system-state base field is no record; a forecast-only hour is one", () => {
  assert.equal(systemStateHour(reading({ thermal_generation: 20000 }), undefined), null);
  const forecast = systemStateHour(reading({ residual_forecast: 21000 }), undefined)!;
  assert.equal(forecast.residual_forecast_mw, 21000);
  assert.equal(forecast.residual_demand_mw, null);
  assert.equal(forecast.forecast_error_mw, null);
});

test("numbers are rounded to 3 decimals, halves away from zero", () => {
  assert.equal(round3(1.23449), 1.234);
  assert.equal(round3(1.2345), 1.235);
  assert.equal(round3(-1.2345), -1.235);
  assert.equal(round3(-0.0001), 0);
  assert.ok(Object.is(round3(-0.0001), 0));
  assert.equal(round3(null), null);
  assert.equal(round3(NaN), null);
});

function hourState(partial: Partial<SystemStateHour>): SystemStateHour {
  return {
    residual_demand_mw: null,
    residual_forecast_mw: null,
    total_re_mw: null,
    imports_mw: null,
    exports_mw: null,
    net_import_mw: null,
    renewable_share_pct: null,
    ocgt_ramp_mw: null,
    forecast_error_mw: null,
    generation_mw: null,
    ...partial,
  };
}

test("daily system state averages skip nulls; share is energy-weighted; ramps are plain max and min", () => {
  const day = Date.parse("2024-01-01T00:00:00Z");
  const hours = [
    hourState({ residual_demand_mw: 20000, total_re_mw: 1000, generation_mw: 20000, ocgt_ramp_mw: 50 }),
    hourState({ residual_demand_mw: 26000, total_re_mw: 3000, generation_mw: 30000, ocgt_ramp_mw: -200 }),
    hourState({ residual_demand_mw: null, total_re_mw: 500, generation_mw: null, ocgt_ramp_mw: 10 }),
    hourState({ residual_forecast_mw: 22000 }),
  ].map((state, i) => ({ hour: day + i * 3_600_000, state }));
  const next = { hour: day + 86_400_000, state: hourState({ residual_demand_mw: 1 }) };
  const [d1, d2] = aggregateSystemStateDays([...hours, next]);
  assert.deepEqual(d1, {
    date: "2024-01-01",
    hours: 4,
    avg_residual_demand_mw: 23000,
    max_residual_demand_mw: 26000,
    avg_residual_forecast_mw: 22000,
    avg_total_re_mw: 1500,
    avg_imports_mw: null,
    avg_exports_mw: null,
    avg_net_import_mw: null,
    // (1000 + 3000) / (20000 + 30000); the 500 MW hour has no generation total, so it is left out
    renewable_share_pct: 8,
    max_ocgt_ramp_mw: 50,
    min_ocgt_ramp_mw: -200,
    avg_forecast_error_mw: null,
  });
  assert.equal(d2!.date, "2024-01-02");
  assert.equal(d2!.hours, 1);
  assert.equal(d2!.renewable_share_pct, null);
});

test("daily ramps keep their sign even when the day only ramps up", () => {
  const day = Date.parse("2024-01-01T00:00:00Z");
  const [d] = aggregateSystemStateDays([
    { hour: day, state: hourState({ residual_demand_mw: 1, ocgt_ramp_mw: 10 }) },
    { hour: day + 3_600_000, state: hourState({ residual_demand_mw: 1, ocgt_ramp_mw: 30 }) },
  ]);
  assert.equal(d!.max_ocgt_ramp_mw, 30);
  assert.equal(d!.min_ocgt_ramp_mw, 10);
});

test("no hours aggregate to no days", () => {
  assert.deepEqual(aggregateSystemStateDays([]), []);
  assert.deepEqual(aggregateGenerationMixDays([]), []);
});

test("generation mix: an hour needs one mix field; days average each field over its hours", () => {
  assert.equal(generationMixHour(reading({ residual_demand: 1 })), null);
  const day = Date.parse("2024-01-01T00:00:00Z");
  const a = generationMixHour(reading({ thermal_generation: 20000, wind: 1000 }))!;
  const b = generationMixHour(reading({ thermal_generation: 21000.0005 }))!;
  const [d] = aggregateGenerationMixDays([
    { hour: day, mix: a },
    { hour: day + 3_600_000, mix: b },
  ]);
  assert.equal(d!.hours, 2);
  assert.equal(d!.avg_thermal_mw, 20500);
  assert.equal(d!.avg_wind_mw, 1000);
  assert.equal(d!.avg_pv_mw, null);
  assert.deepEqual(Object.keys(d!).slice(0, 3), ["date", "hours", "avg_thermal_mw"]);
});
