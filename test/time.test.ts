import { test } from "node:test";
import assert from "node:assert/strict";
import { isoAt, isoNow } from "../src/time.ts";

test("isoAt writes what Date#toISOString writes, within a second and across seconds", () => {
  const instants: number[] = [];
  // Every millisecond of two seconds either side of a day's start, then of the epoch (negative too).
  for (const base of [Date.parse("2025-06-01T00:00:00Z"), 0]) {
    for (let ms = base - 2000; ms < base + 2000; ms++) instants.push(ms);
  }
  // Going back to a second already formatted, and years with the long form.
  instants.push(Date.parse("2025-06-01T00:00:00.5Z"), 253402300800000, -62198755200001, 8.64e15, -8.64e15);
  for (const ms of instants) assert.equal(isoAt(ms), new Date(ms).toISOString(), `at ${ms}`);
});

test("isoNow is now, in the same form", () => {
  const before = Date.now();
  const now = Date.parse(isoNow());
  assert.ok(now >= before && now <= Date.now());
  assert.match(isoNow(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});
