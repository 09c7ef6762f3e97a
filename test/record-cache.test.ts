import { test } from "node:test";
import fc from "fast-check";
import assert from "node:assert/strict";
import type { Dataset, RangeRequest } from "../src/records/dataset.ts";
import { generationMix } from "../src/datasets/generation-mix.ts";
import { gridStress } from "../src/datasets/grid-stress.ts";
import { createRecordCache } from "../src/records/record-cache.ts";
import { systemState } from "../src/datasets/system-state.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { exportCsv, ingestTexts, sast, tempDir } from "./helpers.ts";

const DAY = 86_400_000;

function counting(dataset: Dataset) {
  const runs: number[] = [];
  const wrapped: Dataset = {
    ...dataset,
    records: (store, request) => {
      runs.push(Math.round((request.end - request.start) / DAY));
      return dataset.records(store, request);
    },
  };
  return { wrapped, runs };
}

test("cached records equal computed ones, for whole and partial days, at both intervals", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "s.csv": generateSampleExport({ firstDay: "2025-01-01", days: 60 }) });
  const store = createReadingStore({ dir });
  const cache = createRecordCache({ maxBytes: 8 * 2 ** 20 });
  const requests: RangeRequest[] = [
    {
      start: Date.parse("2025-01-10T05:00:00Z"),
      end: Date.parse("2025-02-03T17:00:00Z"),
      interval: "1h",
      options: {},
    },
    {
      start: Date.parse("2025-01-10T05:00:00Z"),
      end: Date.parse("2025-02-03T17:00:00Z"),
      interval: "1d",
      options: {},
    },
    {
      start: Date.parse("2025-01-01T00:00:00Z"),
      end: Date.parse("2025-03-05T00:00:00Z"),
      interval: "1h",
      options: {},
    },
  ];
  for (const dataset of [systemState, generationMix]) {
    for (const request of requests) {
      for (let round = 0; round < 2; round++) {
        const computed = dataset.records(store, request);
        const what = `${dataset.id} ${request.interval} round ${round}`;
        assert.equal(
          cache.json(dataset, store, request),
          computed.map((record) => JSON.stringify(record)).join(","),
          what,
        );
        assert.deepEqual(cache.records(dataset, store, request), computed, what);
      }
    }
  }
});

test("missing days are computed in runs of at most 62 days, and only once", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "s.csv": generateSampleExport({ firstDay: "2024-01-01", days: 150 }) });
  const store = createReadingStore({ dir });
  const cache = createRecordCache({ maxBytes: 64 * 2 ** 20 });
  const { wrapped, runs } = counting(generationMix);
  const request: RangeRequest = {
    start: Date.parse("2024-01-01T00:00:00Z"),
    end: Date.parse("2024-05-01T00:00:00Z"),
    interval: "1d",
    options: {},
  };
  cache.records(wrapped, store, request);
  assert.ok(
    runs.every((days) => days <= 62),
    JSON.stringify(runs),
  );
  assert.equal(
    runs.reduce((a, b) => a + b, 0),
    121,
  );
  runs.length = 0;
  cache.records(wrapped, store, request);
  assert.deepEqual(runs, [], "the second time, everything comes from the cache");
});

test("a change to a day, or to the day before it, reaches the cached records", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "a.csv": exportCsv(
      ["Residual Demand", "Eskom OCGT Generation"],
      [
        ["2024-01-02 01:00:00 AM", "21000.0", "10.0"],
        ["2024-01-02 02:00:00 AM", "21500.0", "20.0"],
      ],
    ),
  });
  const store = createReadingStore({ dir });
  const cache = createRecordCache({ maxBytes: 2 ** 20 });
  const request: RangeRequest = {
    start: Date.parse("2024-01-02T00:00:00Z"),
    end: Date.parse("2024-01-03T00:00:00Z"),
    interval: "1h",
    options: {},
  };
  const ramp = () => cache.records(systemState, store, request)[0]!.ocgt_ramp_mw;
  assert.equal(ramp(), 10);
  ingestTexts(dir, { "b.csv": exportCsv(["Eskom OCGT Generation"], [["2024-01-02 01:00:00 AM", "15.0"]]) });
  store.refresh();
  assert.equal(ramp(), 5, "the previous day changed, so the first hour's ramp did");
});

test("grid-stress records follow a change anywhere in the 28 days they look back on", (t) => {
  const dir = tempDir(t);
  const start = Date.parse("2024-03-01T00:00:00Z");
  const rows = Array.from({ length: 30 }, (_, d) => [
    sast(start + d * DAY + 10 * 3_600_000),
    "1200.0",
    "27000.0",
  ]);
  ingestTexts(dir, { "a.csv": exportCsv(["Total RE", "Residual Demand"], rows) });
  const store = createReadingStore({ dir });
  const cache = createRecordCache({ maxBytes: 2 ** 20 });
  const request: RangeRequest = {
    start: start + 29 * DAY,
    end: start + 30 * DAY,
    interval: "1h",
    options: { components: true, version: "v1" }, // v1's renewable shortfall looks back 28 days
  };
  const shortfall = () =>
    (cache.records(gridStress, store, request)[0]!.components as Record<string, number>).renewable_shortfall;
  assert.equal(shortfall(), 0);
  // The day 28 days back, at the same hour, now had far more wind and sun: today falls short.
  ingestTexts(dir, {
    "b.csv": exportCsv(["Total RE"], [[sast(start + 1 * DAY + 10 * 3_600_000), "29000.0"]]),
  });
  store.refresh();
  assert.ok(shortfall()! > 0.4);
});

test("any hourly range over days with missing hours gives the computed records' texts, cold or cached", (t) => {
  const dir = tempDir(t);
  const start = Date.parse("2024-06-01T00:00:00Z");
  // Five days, with every third hour missing and no readings at all on the third day.
  const rows: string[][] = [];
  for (let h = 0; h < 5 * 24; h++) {
    if (h % 3 === 1 || Math.floor(h / 24) === 2) continue;
    rows.push([sast(start + h * 3_600_000), String(20_000 + h), String(h % 7)]);
  }
  ingestTexts(dir, { "a.csv": exportCsv(["Residual Demand", "Eskom OCGT Generation"], rows) });
  const store = createReadingStore({ dir });
  const cache = createRecordCache({ maxBytes: 2 ** 20 });
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 5 * 24 }), fc.integer({ min: 1, max: 5 * 24 }), (a, length) => {
      const request: RangeRequest = {
        start: start + a * 3_600_000,
        end: start + Math.min(a + length, 5 * 24 + 1) * 3_600_000,
        interval: "1h",
        options: {},
      };
      const expected = systemState
        .records(store, request)
        .map((record) => JSON.stringify(record))
        .join(",");
      assert.equal(cache.json(systemState, store, request), expected);
    }),
    { numRuns: 200 },
  );
});

test("the cache holds no more than its bound, counted by its text, and answers the same past it", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "s.csv": generateSampleExport({ firstDay: "2025-01-01", days: 60 }) });
  const store = createReadingStore({ dir });
  const day: RangeRequest = {
    start: Date.parse("2025-01-10T00:00:00Z"),
    end: Date.parse("2025-01-11T00:00:00Z"),
    interval: "1h",
    options: {},
  };
  const roomy = createRecordCache({ maxBytes: 2 ** 20 });
  const text = roomy.json(systemState, store, day);
  assert.ok(roomy.weight >= text.length, `one day weighs ${roomy.weight}, its text is ${text.length} long`);

  const bound = 10 * text.length; // room for about ten of the sixty days
  const small = createRecordCache({ maxBytes: bound });
  const all: RangeRequest = {
    ...day,
    start: Date.parse("2025-01-01T00:00:00Z"),
    end: Date.parse("2025-03-02T00:00:00Z"),
  };
  const expected = systemState
    .records(store, all)
    .map((record) => JSON.stringify(record))
    .join(",");
  for (let round = 0; round < 2; round++) {
    assert.equal(small.json(systemState, store, all), expected);
    assert.ok(small.weight > 0 && small.weight <= bound, `weight ${small.weight}, bound ${bound}`);
  }
});
