/** `src/ingest/merge.ts`: readings merge by hour, field by field; a blank never overwrites. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mergeFile } from "../src/ingest/merge.ts";
import { requireColumn } from "../src/source/columns.ts";
import type { PortalFile } from "../src/source/portal-csv.ts";
import { type Day, emptyDay } from "../src/store/day-file.ts";

const DEMAND = requireColumn("residual_demand");
const WIND = requireColumn("wind");
const T0 = Date.parse("2024-01-01T00:00:00Z");

function file(rows: [number, number, number][]): PortalFile {
  return {
    name: "f.csv",
    delimiter: ";",
    headerNames: ["date_time_hour_beginning", "residual_demand", "wind"],
    columns: [DEMAND, WIND],
    columnNames: ["residual_demand", "wind"],
    rows: rows.map(([hour, demand, wind], i) => ({
      line: i + 2,
      hour,
      values: Float64Array.of(demand, wind),
    })),
    rowsRead: rows.length,
    skipped: { blank: 0, placeholder: 0, uncertain: 0, future: 0, cut: 0 },
    firstLines: {},
    newestObserved: null,
    sample: false,
    form: undefined,
  };
}

function loader() {
  const days = new Map<string, Day>();
  const loads: string[] = [];
  const load = (key: string) => {
    loads.push(key);
    let day = days.get(key);
    if (day === undefined) days.set(key, (day = emptyDay(key)));
    return day;
  };
  return { days, loads, load };
}

test("a later file wins field by field; its blanks leave what is stored; unchanged rows count for nothing", () => {
  const { days, load } = loader();
  assert.equal(mergeFile(file([[T0, 20_000, 500]]), load).changed, 1);
  assert.equal(mergeFile(file([[T0, NaN, 650]]), load).changed, 1, "wind revised, demand kept");
  const reading = days.get("2024-01-01")!.hours[0]!;
  assert.equal(reading[DEMAND], 20_000);
  assert.equal(reading[WIND], 650);
  assert.equal(mergeFile(file([[T0, 20_000, 650]]), load).changed, 0, "the same values change nothing");
});

test("an all-blank row creates no reading; rows land in their own UTC day and hour", () => {
  const { days, load } = loader();
  const late = T0 + 47 * 3_600_000;
  assert.equal(
    mergeFile(
      file([
        [T0 + 3_600_000, NaN, NaN],
        [late, 1, 2],
      ]),
      load,
    ).changed,
    1,
  );
  assert.equal(days.get("2024-01-01")!.hours[1], undefined);
  assert.equal(days.get("2024-01-02")!.hours[23]![WIND], 2);
});

test("-0 and 0 are different stored values (Object.is), so a sign fix is a revision", () => {
  const { load } = loader();
  mergeFile(file([[T0, 0, 0]]), load);
  assert.equal(mergeFile(file([[T0, -0, 0]]), load).changed, 1);
});

test("a loader that hands back the wrong day is a programming error, not a silent write", () => {
  assert.throws(
    () => mergeFile(file([[T0, 1, 1]]), () => emptyDay("2024-01-05")),
    /is not in day 2024-01-01/,
  );
});

test("a report fills and marks, revises its own values, never a file's, and a file takes its hours back", () => {
  const { days, load } = loader();
  const CAPACITY = requireColumn("available_capacity_incl_non_comm_units");
  const MARK = requireColumn("from_powerbi_report");
  const T1 = T0 + 3_600_000;
  const two = (rows: [number, number, number][]): PortalFile => ({
    ...file(rows),
    columns: [DEMAND, CAPACITY],
    columnNames: ["residual_demand", "available_capacity_incl_non_comm_units"],
  });
  const report = { report: true, quiet: new Set(["residual_demand"]) } as const;
  const hour = (h: number) => days.get("2024-01-01")!.hours[h]!;
  mergeFile(two([[T0, 20_000, 30_000]]), load);
  // At T0 the file's values stay: the capacity's 100 MW more is counted, the quiet demand's is not.
  // T1 no file gave: the report fills it, and marks both values (bits 0 and 2 of REPORT_COLUMNS).
  const first = mergeFile(
    two([
      [T0, 19_000, 30_100],
      [T1, 21_000, 32_000],
    ]),
    load,
    report,
  );
  assert.deepEqual(
    [first.changed, first.disagreements, first.firstDisagreement?.column, first.firstDisagreement?.report],
    [1, 1, "available_capacity_incl_non_comm_units", 30_100],
  );
  assert.deepEqual([hour(0)[DEMAND], hour(0)[CAPACITY], hour(0)[MARK]], [20_000, 30_000, NaN]);
  assert.deepEqual([hour(1)[DEMAND], hour(1)[CAPACITY], hour(1)[MARK]], [21_000, 32_000, 0b101]);
  assert.equal(mergeFile(two([[T0, 20_000, 30_000.4]]), load, report).disagreements, 0, "within rounding");
  // Its own value it revises; a file's value takes the mark away, even when it is the same.
  assert.equal(mergeFile(two([[T1, NaN, 32_500]]), load, report).changed, 1);
  assert.equal(hour(1)[CAPACITY], 32_500);
  assert.equal(mergeFile(two([[T1, 21_000, NaN]]), load).changed, 1);
  assert.equal(hour(1)[MARK], 0b001);
  assert.equal(mergeFile(two([[T1, NaN, 33_000]]), load).changed, 1);
  assert.deepEqual([hour(1)[CAPACITY], hour(1)[MARK]], [33_000, NaN]);
  const again = mergeFile(two([[T1, NaN, 29_000]]), load, report);
  assert.deepEqual([again.changed, again.disagreements, hour(1)[CAPACITY]], [0, 1, 33_000], "the file's now");
});
