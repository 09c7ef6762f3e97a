/**
 * The dataset tables of `src/datasets/`: hourly computations, daily rules and look-back, driven
 * through an in-memory source of readings.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { columnIndex } from "../src/source/columns.ts";
import { emptyReading, type Reading } from "../src/source/reading.ts";
import { emptyDay, type Day } from "../src/store/day-file.ts";
import { dayKey, HOUR_MS } from "../src/time.ts";
import type { HourSource } from "../src/records/dataset-table.ts";
import { systemState } from "../src/datasets/system-state.ts";
import { generationMix, mixHour } from "../src/datasets/generation-mix.ts";
import { round3 } from "../src/records/source-fields.ts";

function reading(values: Record<string, number>): Reading {
  const r = emptyReading();
  for (const [name, value] of Object.entries(values)) {
    const i = columnIndex(name);
    assert.ok(i >= 0, name);
    r[i] = value;
  }
  return r;
}

const T0 = Date.parse("2024-01-01T00:00:00Z");

/** A source holding `readings` at T0, T0 + 1 h, ... (undefined leaves an hour empty). */
function source(readings: readonly (Reading | undefined)[], start = T0): HourSource {
  const days = new Map<string, Day>();
  readings.forEach((r, i) => {
    if (r === undefined) return;
    const hour = start + i * HOUR_MS;
    const day = days.get(dayKey(hour)) ?? emptyDay(dayKey(hour));
    day.hours[(hour - day.start) / HOUR_MS] = r;
    days.set(day.key, day);
  });
  return {
    day: (key) => days.get(key),
    reading: (hour) => days.get(dayKey(hour))?.hours[(hour - Date.parse(dayKey(hour))) / HOUR_MS],
  };
}

/** The unrounded hourly value of each system-state field of the last of `readings`. */
function state(...readings: (Reading | undefined)[]): Record<string, unknown> | null {
  const hours = systemState.hours(source(readings), T0, T0 + readings.length * HOUR_MS);
  const last = hours.at(-1);
  if (last === undefined || last.hour !== T0 + (readings.length - 1) * HOUR_MS) return null;
  return Object.fromEntries(
    Object.entries(systemState.table.hourly).map(([name, field]) => [name, field.value(last.inputs)]),
  );
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
  const s = state(before, now)!;
  assert.equal(s.net_import_mw, 1200 - 1500.25);
  // generation = 20000+1800+0+500+400+300+1000+600+150+50 = 24800
  assert.equal(s.renewable_share_pct, (100 * 1800) / 24800);
  assert.equal(round3(s.renewable_share_pct), 7.258);
  assert.equal(s.ocgt_ramp_mw, 380);
  assert.equal(s.forecast_error_mw, 499.5);
});

test("total RE falls back to wind + PV + CSP + other RE when the column is absent", () => {
  assert.equal(state(reading({ wind: 1000, pv: 600.5, csp: 150, other_re: 49.5 }))!.total_re_mw, 1800);
  const partial = state(reading({ wind: 1000, residual_demand: 20000 }))!;
  assert.equal(partial.total_re_mw, null);
});

test("any null input gives a null derived value, and a zero denominator gives null", () => {
  const s = state(reading({ residual_demand: 20000, international_imports: 1000 }))!;
  assert.equal(s.net_import_mw, null);
  assert.equal(s.renewable_share_pct, null);
  assert.equal(s.ocgt_ramp_mw, null);
  assert.equal(s.forecast_error_mw, null);
  const zero = Object.fromEntries(Object.keys(GENERATION).map((k) => [k, 0]));
  assert.equal(state(reading({ ...zero, total_re: 0 }))!.renewable_share_pct, null);
});

test("the OCGT ramp is null when the previous hour has no reading", () => {
  assert.equal(
    state(undefined, reading({ eskom_ocgt_generation: 100, residual_demand: 1 }))!.ocgt_ramp_mw,
    null,
  );
});

test("an hour without any system-state base field is no record; a forecast-only hour is one", () => {
  assert.equal(state(reading({ thermal_generation: 20000 })), null);
  const forecast = state(reading({ residual_forecast: 21000 }))!;
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

test("daily system state averages skip nulls; share is energy-weighted; ramps are plain max and min", () => {
  // The ten mix fields summing to `total`, with `ocgt` of it from OCGT.
  const gen = (total: number, ocgt: number) => ({
    ...GENERATION,
    eskom_ocgt_generation: ocgt,
    thermal_generation: total - 4300 - ocgt,
  });
  const hours = [
    reading({ residual_demand: 20000, total_re: 1000, ...gen(20000, 500) }),
    reading({ residual_demand: 26000, total_re: 3000, ...gen(30000, 300) }),
    reading({ total_re: 500, eskom_ocgt_generation: 310 }),
    reading({ residual_forecast: 22000 }),
  ];
  const next = reading({ residual_demand: 1 });
  const all = [...hours, ...new Array<undefined>(20), next];
  const [d1, d2] = systemState.dailyRecords(source(all), T0, T0 + 2 * 86_400_000);
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
    // ramps: none for the first hour (no hour before), -200, +10, none (no OCGT)
    max_ocgt_ramp_mw: 10,
    min_ocgt_ramp_mw: -200,
    avg_forecast_error_mw: null,
  });
  assert.equal(d2!.date, "2024-01-02");
  assert.equal(d2!.hours, 1);
  assert.equal(d2!.renewable_share_pct, null);
});

test("daily ramps keep their sign even when the day only ramps up", () => {
  const hours = [0, 10, 40].map((ocgt) => reading({ residual_demand: 1, eskom_ocgt_generation: ocgt }));
  const [d] = systemState.dailyRecords(source(hours), T0, T0 + 86_400_000);
  assert.equal(d!.max_ocgt_ramp_mw, 30);
  assert.equal(d!.min_ocgt_ramp_mw, 10);
});

test("the OCGT ramp of a day's first hour reads the day before, within the declared look-back", () => {
  assert.equal(systemState.lookbackDays, 1);
  const late = T0 - HOUR_MS;
  const readings = [
    reading({ eskom_ocgt_generation: 100 }),
    reading({ residual_demand: 1, eskom_ocgt_generation: 160 }),
  ];
  const [first] = systemState.hourlyRecords(source(readings, late), {
    start: T0,
    end: T0 + HOUR_MS,
    interval: "1h",
    options: {},
  });
  assert.equal(first!.ocgt_ramp_mw, 60);
});

test("no hours aggregate to no days", () => {
  assert.deepEqual(systemState.dailyRecords(source([]), T0, T0 + 86_400_000), []);
  assert.deepEqual(generationMix.dailyRecords(source([]), T0, T0 + 86_400_000), []);
});

test("generation mix: an hour needs one mix field; days average each field over its hours", () => {
  assert.equal(mixHour(reading({ residual_demand: 1 })), null);
  const hours = [
    reading({ thermal_generation: 20000, wind: 1000 }),
    reading({ thermal_generation: 21000.0005 }),
  ];
  const [d] = generationMix.dailyRecords(source(hours), T0, T0 + 86_400_000);
  assert.equal(d!.hours, 2);
  assert.equal(d!.avg_thermal_mw, 20500);
  assert.equal(d!.avg_wind_mw, 1000);
  assert.equal(d!.avg_pv_mw, null);
  assert.deepEqual(Object.keys(d!).slice(0, 3), ["date", "hours", "avg_thermal_mw"]);
});
