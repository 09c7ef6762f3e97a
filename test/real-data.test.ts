/**
 * The real Eskom Data Portal files in ../shared/data/eskom, ingested through the real path and
 * served over HTTP, checked against values computed here independently from the raw rows.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { REAL_DATA_DIR, REAL_DATA_SKIP, snapshotDir, startServer, tempDir } from "./helpers.ts";
import { export2018Store } from "./fixture-stores.ts";

const EXPORT = join(REAL_DATA_DIR, "eskom_data_v1-1.csv");
const LIVE = join(REAL_DATA_DIR, "portal_snapshot_2023-02-21");
const BUILD_UP = join(LIVE, "Station_Build_Up.csv");
const DEMAND = join(LIVE, "System_hourly_actual_and_forecasted_demand.csv");
const RENEWABLES = join(LIVE, "Hourly_Generation.csv");

type Row = { utc: number; get(name: string): number | null };

// An independent reader of the raw export: split on ',', re-join the Total UCLF+OCLF halves.
function rawExportRows(): Row[] {
  const [header, ...lines] = readFileSync(EXPORT, "utf8").trimEnd().split("\n");
  const names = header!.split(",");
  const quirk = names.indexOf("Total UCLF+OCLF");
  return lines.map((line) => {
    const f = line.split(",");
    if (f.length === names.length + 1) f.splice(quirk, 2, `${f[quirk]}.${f[quirk + 1]}`);
    assert.equal(f.length, names.length);
    const [date, time, meridiem] = f[0]!.split(" ");
    let hour = Number(time!.slice(0, 2)) % 12;
    if (meridiem === "PM") hour += 12;
    const utc = Date.parse(`${date}T${String(hour).padStart(2, "0")}:00:00+02:00`);
    return {
      utc,
      get: (name: string) => {
        const v = f[names.indexOf(name)];
        assert.notEqual(names.indexOf(name), -1, name);
        return v === "" ? null : Number(v);
      },
    };
  });
}

// The live files: ';' delimiter, decimal commas, CRLF, unsorted.
function rawLiveRows(path: string): Map<number, Row> {
  const [header, ...lines] = readFileSync(path, "utf8").trimEnd().split("\r\n");
  const names = header!.split(";");
  const out = new Map<number, Row>();
  for (const line of lines) {
    const f = line.split(";");
    const utc = Date.parse(`${f[0]!.replace(" ", "T")}+02:00`);
    out.set(utc, {
      utc,
      get: (name) => {
        const v = f[names.indexOf(name)]!;
        return v === "" ? null : Number(v.replace(",", "."));
      },
    });
  }
  return out;
}

const close = (actual: number | null, expected: number | null, what: string) => {
  if (expected === null) return assert.equal(actual, null, what);
  assert.ok(actual !== null && Math.abs(actual - expected) <= 0.0011, `${what}: ${actual} vs ${expected}`);
};
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "+00:00";
const GEN = [
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
];

test(
  "the 2018 export serves hourly system state and mix equal to the raw rows",
  { skip: REAL_DATA_SKIP },
  async (t) => {
    const dir = tempDir(t);
    const summary = ingestFiles([EXPORT], { dir });
    assert.deepEqual(summary.failures, []);
    assert.equal(summary.rowsRead, 3013);
    const server = await startServer(t, dir);
    const rows = rawExportRows();
    const res = await server.get(`/api/v1/grid/system-state?start=${iso(rows[0]!.utc)}&end=2018-09-01`);
    const body = await res.json();
    assert.equal(body.data.length, 3013);
    rows.forEach((row, i) => {
      const r = body.data[i];
      assert.equal(r.ts, iso(row.utc));
      const rd = row.get("Residual Demand")!;
      const rf = row.get("Residual Forecast")!;
      const imp = row.get("International Imports")!;
      const exp = row.get("International Exports")!;
      const re = row.get("Total RE")!;
      const gen = GEN.reduce((s, n) => s + row.get(n)!, 0);
      close(r.residual_demand_mw, rd, `${r.ts} demand`);
      close(r.residual_forecast_mw, rf, `${r.ts} forecast`);
      close(r.total_re_mw, re, `${r.ts} re`);
      close(r.imports_mw, imp, `${r.ts} imports`);
      close(r.exports_mw, exp, `${r.ts} exports`);
      close(r.net_import_mw, imp - exp, `${r.ts} net`);
      close(r.renewable_share_pct, (100 * re) / gen, `${r.ts} share`);
      close(r.forecast_error_mw, rd - rf, `${r.ts} error`);
      const ramp =
        i === 0 ? null : row.get("Eskom OCGT Generation")! - rows[i - 1]!.get("Eskom OCGT Generation")!;
      close(r.ocgt_ramp_mw, ramp, `${r.ts} ramp`);
    });
    // Load shedding in 2018: the OCGT ramps are large, the share is small.
    assert.ok(body.data.some((r: any) => r.ocgt_ramp_mw > 1000));

    const mix = await (await server.get(`/api/v1/generation/mix?start=2018-06-01&end=2018-06-02`)).json();
    assert.equal(mix.data.length, 24);
    const first = rows.find((r) => r.utc === Date.parse("2018-06-01T00:00:00Z"))!;
    close(mix.data[0].thermal_mw, first.get("Thermal Generation"), "thermal");
    close(mix.data[0].pumped_water_gen_mw, first.get("Pumped Water Generation"), "pumped");
    close(mix.data[0].other_re_mw, first.get("Other RE"), "other");
  },
);

test(
  "the 2018 export serves daily aggregates equal to those computed from the raw rows",
  { skip: REAL_DATA_SKIP },
  async (t) => {
    const server = await startServer(t, tempDir(t), { storeDir: await export2018Store() });
    const rows = rawExportRows();
    const days = new Map<string, { row: Row; prev: Row | undefined }[]>();
    rows.forEach((row, i) => {
      const key = new Date(row.utc).toISOString().slice(0, 10);
      if (!days.has(key)) days.set(key, []);
      days.get(key)!.push({ row, prev: rows[i - 1] });
    });
    const state = await (
      await server.get("/api/v1/grid/system-state?start=2018-03-01&end=2018-09-01&interval=1d")
    ).json();
    const mix = await (
      await server.get("/api/v1/generation/mix?start=2018-03-01&end=2018-09-01&interval=1d")
    ).json();
    assert.deepEqual(
      state.data.map((d: any) => d.date),
      [...days.keys()],
    );
    // SAST midnight is 22:00 UTC: the first UTC day has 2 hours, the last (13 SAST hours) 11.
    assert.equal(state.data[0].hours, 2);
    assert.equal(state.data.at(-1).hours, 11);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    state.data.forEach((d: any, i: number) => {
      const hours = days.get(d.date)!;
      assert.equal(d.hours, hours.length);
      const col = (name: string) => hours.map((h) => h.row.get(name)!);
      close(d.avg_residual_demand_mw, mean(col("Residual Demand")), `${d.date} avg demand`);
      close(d.max_residual_demand_mw, Math.max(...col("Residual Demand")), `${d.date} max demand`);
      close(d.avg_residual_forecast_mw, mean(col("Residual Forecast")), `${d.date} forecast`);
      close(d.avg_total_re_mw, mean(col("Total RE")), `${d.date} re`);
      close(
        d.avg_net_import_mw,
        mean(hours.map((h) => h.row.get("International Imports")! - h.row.get("International Exports")!)),
        `${d.date} net`,
      );
      const gen = hours.reduce((s, h) => s + GEN.reduce((g, n) => g + h.row.get(n)!, 0), 0);
      close(
        d.renewable_share_pct,
        (100 * col("Total RE").reduce((a, b) => a + b, 0)) / gen,
        `${d.date} share`,
      );
      const ramps = hours
        .filter((h) => h.prev)
        .map((h) => h.row.get("Eskom OCGT Generation")! - h.prev!.get("Eskom OCGT Generation")!);
      close(d.max_ocgt_ramp_mw, ramps.length ? Math.max(...ramps) : null, `${d.date} max ramp`);
      close(d.min_ocgt_ramp_mw, ramps.length ? Math.min(...ramps) : null, `${d.date} min ramp`);
      close(
        d.avg_forecast_error_mw,
        mean(hours.map((h) => h.row.get("Residual Demand")! - h.row.get("Residual Forecast")!)),
        `${d.date} error`,
      );
      const m = mix.data[i];
      assert.equal(m.date, d.date);
      close(m.avg_thermal_mw, mean(col("Thermal Generation")), `${d.date} thermal`);
      close(m.avg_wind_mw, mean(col("Wind")), `${d.date} wind`);
      close(m.avg_utility_ocgt_mw, mean(col("Eskom OCGT Generation")), `${d.date} ocgt`);
    });
  },
);

test("the three 2023 live files merge hour by hour across files", { skip: REAL_DATA_SKIP }, async (t) => {
  const dir = tempDir(t);
  const summary = ingestFiles([BUILD_UP, DEMAND, RENEWABLES], { dir });
  assert.deepEqual(summary.failures, []);
  assert.deepEqual(summary.skipped, { blank: 24, placeholder: 216, uncertain: 0, future: 0, cut: 0 });
  const server = await startServer(t, dir);
  const buildUp = rawLiveRows(BUILD_UP);
  const demand = rawLiveRows(DEMAND);
  const renewables = rawLiveRows(RENEWABLES);

  const state = await (
    await server.get("/api/v1/grid/system-state?start=2023-02-13T22:00:00Z&end=2023-02-28")
  ).json();
  const mix = await (
    await server.get("/api/v1/generation/mix?start=2023-02-13T22:00:00Z&end=2023-02-28")
  ).json();
  // Actuals for 2023-02-14..19 SAST, then forecasts only to 2023-02-27 23:00 SAST.
  assert.equal(state.data.length, 14 * 24);
  assert.equal(mix.data.length, 6 * 24);
  assert.equal(state.meta.last_available, "2023-02-19T21:00:00+00:00");
  for (const r of state.data.slice(0, 144)) {
    const utc = Date.parse(r.ts);
    const b = buildUp.get(utc)!;
    const d = demand.get(utc)!;
    const g = renewables.get(utc)!;
    close(r.residual_demand_mw, d.get("Residual Demand"), `${r.ts} demand`);
    close(r.imports_mw, b.get("International_Imports"), `${r.ts} imports`);
    assert.equal(r.exports_mw, null, "the live files carry no exports");
    // Hourly_Generation came last, so its renewables win where both files have them.
    const re = ["Wind", "PV", "CSP", "Other RE"].reduce((s, n) => s + g.get(n)!, 0);
    close(r.total_re_mw, re, `${r.ts} re`);
    const gen =
      [
        "Thermal_Generation",
        "Nuclear_Generation",
        "Eskom_Gas_Generation",
        "Eskom_OCGT_Generation",
        "Hydro_Water_Generation",
        "Pumped_Water_Generation",
      ].reduce((s, n) => s + b.get(n)!, 0) + re;
    close(r.renewable_share_pct, (100 * re) / gen, `${r.ts} share`);
  }
  for (const r of state.data.slice(144)) {
    assert.equal(r.residual_demand_mw, null);
    close(r.residual_forecast_mw, demand.get(Date.parse(r.ts))!.get("Residual Forecast"), `${r.ts} forecast`);
  }
  const m = mix.data[30];
  const utc = Date.parse(m.ts);
  close(m.thermal_mw, buildUp.get(utc)!.get("Thermal_Generation"), "thermal");
  close(m.wind_mw, renewables.get(utc)!.get("Wind"), "wind from the renewables file");
});

test("re-ingesting the real files leaves the store byte-identical", { skip: REAL_DATA_SKIP }, (t) => {
  const dir = tempDir(t);
  const files = [EXPORT, BUILD_UP, DEMAND, RENEWABLES];
  ingestFiles(files, { dir });
  const first = snapshotDir(dir);
  const again = ingestFiles(files, { dir });
  assert.equal(again.daysWritten, 0);
  assert.deepEqual(snapshotDir(dir), first);
});
