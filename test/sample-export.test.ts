import { test } from "node:test";
import assert from "node:assert/strict";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { parsePortalCsv } from "../src/source/portal-csv.ts";

const YEAR = generateSampleExport({ firstDay: "2025-01-01", days: 365 });

test("sample data is deterministic", () => {
  assert.equal(generateSampleExport({ firstDay: "2025-01-01", days: 365 }), YEAR);
  assert.notEqual(generateSampleExport({ firstDay: "2025-01-01", days: 365, seed: 7 }), YEAR);
});

test("sample data is a year of hourly rows in the export format, quirk included", () => {
  const file = parsePortalCsv(YEAR, "sample.csv");
  assert.equal(file.delimiter, ",");
  assert.equal(file.columns.length, 43, "the export's 41 and the live capacity file's two");
  assert.equal(file.rows.length, 365 * 24);
  const lines = YEAR.trimEnd().split("\n");
  assert.ok(
    lines.slice(1).some((l) => l.split(",").length === 46),
    "some rows carry the decimal-comma quirk",
  );
  assert.equal(lines[1]!.slice(0, 22), "2025-01-01 12:00:00 AM");
  for (let i = 1; i < file.rows.length; i++)
    assert.equal(file.rows[i]!.hour - file.rows[i - 1]!.hour, 3_600_000);
});

test("sample magnitudes look like the real exports", () => {
  const file = parsePortalCsv(YEAR, "sample.csv");
  const column = (name: string) => {
    const i = file.columnNames.indexOf(name);
    return file.rows.map((r) => r.values[i]!);
  };
  const stats = (xs: number[]) => ({
    min: Math.min(...xs),
    max: Math.max(...xs),
    mean: xs.reduce((a, b) => a + b, 0) / xs.length,
  });
  const demand = stats(column("residual_demand"));
  assert.ok(
    demand.min > 12_000 && demand.max < 38_000 && demand.mean > 20_000 && demand.mean < 30_000,
    JSON.stringify(demand),
  );
  const pv = column("pv");
  assert.ok(pv.some((v) => v === 0) && Math.max(...pv) > 1_000, "PV is zero at night and high at noon");
  const ocgt = stats(column("eskom_ocgt_generation"));
  assert.ok(ocgt.min === 0 && ocgt.max > 1_000 && ocgt.mean < 500, JSON.stringify(ocgt));
  const mlr = column("manual_load_reduction_mlr");
  const shed = mlr.filter((v) => v > 0).length;
  assert.ok(shed > 0 && shed < mlr.length / 10, `load reduction in ${shed} hours`);
  // No load reduction below 0 (the real 2020-22 export: once, by 0.1 MW), and other interruptions
  // 0 in most hours (there: 89%).
  for (const name of ["manual_load_reduction_mlr", "ils_usage", "ios_excl_ils_and_mlr"])
    assert.ok(Math.min(...column(name)) >= 0, `${name} is never negative`);
  const ios = column("ios_excl_ils_and_mlr");
  const quiet = ios.filter((v) => v === 0).length / ios.length;
  assert.ok(quiet > 0.8 && quiet < 0.95, `other interruptions 0 in ${quiet} of hours`);
  // The identities the real exports hold.
  const re = column("total_re");
  const parts = ["wind", "pv", "csp", "other_re"].map(column);
  re.forEach((v, i) => assert.ok(Math.abs(v - parts.reduce((s, p) => s + p[i]!, 0)) < 0.01));
  const uclf = column("total_uclf");
  const oclf = column("total_oclf");
  column("total_uclf_oclf").forEach((v, i) => assert.ok(Math.abs(v - uclf[i]! - oclf[i]!) < 0.002));
  // The live capacity file's: capacity with renewables less without is the renewables' output,
  // and units not yet in commercial operation add to the export's available capacity.
  const live = column("available_capacity_incl_non_comm_units");
  const liveRe = column("available_capacity_incl_non_comm_units_incl_total_re");
  live.forEach((v, i) => assert.ok(Math.abs(liveRe[i]! - v - re[i]!) < 0.01));
  const installed = column("installed_eskom_capacity");
  const pclf = column("total_pclf");
  live.forEach((v, i) => {
    const exported = installed[i]! - pclf[i]! - uclf[i]! - oclf[i]!;
    assert.ok(v - exported >= 299 && v - exported <= 701, `${v} against ${exported}`);
  });
});
