/**
 * `src/datasets/dataset-table.ts`: a table's look-back is what its record code needs (records
 * are the same over the look-back window as over the whole store, and a shorter one changes
 * them), field descriptions come from the table, and a daily rule naming no hourly field fails.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { RangeRequest } from "../src/records/dataset.ts";
import { defineDataset, type HourlyField, windowFrom } from "../src/records/dataset-table.ts";
import { generationMix } from "../src/datasets/generation-mix.ts";
import { gridStress, gridStressV1, gridStressV2 } from "../src/datasets/grid-stress.ts";
import { systemState } from "../src/datasets/system-state.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { ingestTexts, tempDir } from "./helpers.ts";

const DAY = 86_400_000;
const DATASETS = [systemState, generationMix, gridStressV1, gridStressV2];

function sampleStore(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  ingestTexts(dir, { "s.csv": generateSampleExport({ firstDay: "2025-01-01", days: 75 }) });
  return createReadingStore({ dir });
}

// The same table with every field's look-back changed by `delta` days (at least 0).
function withLookback(dataset: (typeof DATASETS)[number], delta: number) {
  const hourly = Object.fromEntries(
    Object.entries(dataset.table.hourly).map(([name, field]: [string, HourlyField<unknown>]) => [
      name,
      { ...field, lookbackDays: Math.max(0, (field.lookbackDays ?? 0) + delta) },
    ]),
  );
  return defineDataset({ ...dataset.table, hourly } as unknown as Parameters<typeof defineDataset>[0]);
}

const request = (start: string, days: number, interval: "1h" | "1d"): RangeRequest => ({
  start: Date.parse(start),
  end: Date.parse(start) + days * DAY,
  interval,
  options: { components: true },
});

test("every dataset's records are the same over its look-back window as over 60 more days", (t) => {
  const store = sampleStore(t);
  for (const dataset of DATASETS) {
    const wide = withLookback(dataset, 60);
    for (const interval of ["1h", "1d"] as const) {
      for (const start of ["2025-01-03T00:00:00Z", "2025-02-10T07:00:00Z", "2025-03-14T00:00:00Z"]) {
        const r = request(start, 3, interval);
        assert.deepEqual(
          dataset.records(store, r),
          wide.records(store, r),
          `${dataset.id} ${interval} ${start}`,
        );
      }
    }
  }
});

test("a shorter look-back changes grid stress v1: the declared 28 days are all read", (t) => {
  const store = sampleStore(t);
  assert.equal(gridStressV1.lookbackDays, 28);
  // One day short still reads 28 whole days before a midnight start: the window always holds
  // the day of the hour before the range (`firstDayRead`). Two days short does not.
  assert.deepEqual(
    gridStressV1.records(store, request("2025-03-10T00:00:00Z", 2, "1h")),
    withLookback(gridStressV1, -1).records(store, request("2025-03-10T00:00:00Z", 2, "1h")),
  );
  const short = withLookback(gridStressV1, -2);
  const r = request("2025-03-10T00:00:00Z", 2, "1h");
  assert.notDeepEqual(gridStressV1.records(store, r), short.records(store, r));
});

test("a shorter look-back changes grid stress v2: the declared 7 days (a week of diesel and supply) are all read", (t) => {
  const store = sampleStore(t);
  assert.equal(gridStressV2.lookbackDays, 7);
  assert.equal(gridStress.lookbackDays, 28, "the versioned dataset reads what either version needs");
  const r = request("2025-03-10T05:00:00Z", 2, "1h");
  assert.notDeepEqual(gridStressV2.records(store, r), withLookback(gridStressV2, -1).records(store, r));
});

test("the window hides every day before its first", (t) => {
  const store = sampleStore(t);
  const first = Date.parse("2025-01-10T00:00:00Z");
  const view = windowFrom(store, first);
  assert.equal(view.day("2025-01-09"), undefined);
  assert.equal(view.reading(first - 3_600_000), undefined);
  assert.ok(view.day("2025-01-10"));
  assert.ok(view.reading(first));
});

test("field descriptions come from the table, in its order, time field and hour count first", () => {
  assert.deepEqual(
    systemState.fields["1h"].map((f) => f.name),
    ["ts", ...Object.keys(systemState.table.hourly)],
  );
  assert.deepEqual(
    gridStress.fields["1d"].map((f) => f.name),
    [
      "date",
      "hours",
      "avg_value",
      "max_value",
      "hours_low",
      "hours_moderate",
      "hours_high",
      "hours_critical",
    ],
  );
  // No computation leaks into the served descriptions.
  for (const dataset of DATASETS)
    for (const field of [...dataset.fields["1h"], ...dataset.fields["1d"]]) {
      assert.ok(!("value" in field) && !("from" in field) && !("lookbackDays" in field), field.name);
    }
});

test("a daily rule that names no hourly field is refused when the dataset is defined", () => {
  assert.throws(
    () =>
      defineDataset({
        ...generationMix.table,
        daily: { avg_coal_mw: { type: "number", description: "x", from: { mean: "coal_mw" } } },
      }),
    /a daily rule reads coal_mw, which is no hourly field/,
  );
});
