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
  assert.equal(mergeFile(file([[T0, 20_000, 500]]), load), 1);
  assert.equal(mergeFile(file([[T0, NaN, 650]]), load), 1, "wind revised, demand kept");
  const reading = days.get("2024-01-01")!.hours[0]!;
  assert.equal(reading[DEMAND], 20_000);
  assert.equal(reading[WIND], 650);
  assert.equal(mergeFile(file([[T0, 20_000, 650]]), load), 0, "the same values change nothing");
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
    ),
    1,
  );
  assert.equal(days.get("2024-01-01")!.hours[1], undefined);
  assert.equal(days.get("2024-01-02")!.hours[23]![WIND], 2);
});

test("-0 and 0 are different stored values (Object.is), so a sign fix is a revision", () => {
  const { load } = loader();
  mergeFile(file([[T0, 0, 0]]), load);
  assert.equal(mergeFile(file([[T0, -0, 0]]), load), 1);
});

test("a loader that hands back the wrong day is a programming error, not a silent write", () => {
  assert.throws(
    () => mergeFile(file([[T0, 1, 1]]), () => emptyDay("2024-01-05")),
    /is not in day 2024-01-01/,
  );
});
