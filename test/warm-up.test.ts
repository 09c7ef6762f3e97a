import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { warmUp } from "../src/records/warm-up.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { DATASETS, isHourly } from "../src/datasets/registry.ts";
const HOURLY_DATASETS = DATASETS.filter(isHourly);
import { createReadingStore } from "../src/store/reading-store.ts";
import { ingestTexts, tempDir } from "./helpers.ts";

test("the start-up check reads the newest week through every dataset", (t) => {
  const dir = tempDir(t);
  assert.equal(
    warmUp(createReadingStore({ dir }), HOURLY_DATASETS),
    0,
    "an empty store has nothing to check",
  );
  ingestTexts(dir, { "s.csv": generateSampleExport({ firstDay: "2025-01-01", days: 40 }) });
  const store = createReadingStore({ dir });
  const read = new Set<string>();
  const counting = { ...store, day: (key: string) => (read.add(key), store.day(key)) };
  warmUp(counting, HOURLY_DATASETS);
  const newest = [...store.refresh().manifest.keys()].slice(-7);
  for (const key of newest) assert.ok(read.has(key), `the newest week's ${key} was read`);
  const first = [...store.refresh().manifest.keys()][0]!;
  assert.ok(
    !read.has(first),
    `the first stored day, ${first}, was not: only the newest week and its look-back`,
  );
});

test("the start-up check reports a damaged day file", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "s.csv": generateSampleExport({ firstDay: "2025-01-01", days: 10 }) });
  rmSync(join(dir, "readings", "2025-01.pack"));
  writeFileSync(join(dir, "readings", "2025-01-10.jsonl"), "{ not json\n");
  assert.throws(
    () => warmUp(createReadingStore({ dir }), HOURLY_DATASETS),
    /The stored day 2025-01-10 is damaged \(readings\/2025-01-10.jsonl: its content does not match/,
  );
});
