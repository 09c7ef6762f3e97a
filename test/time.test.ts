import { test } from "node:test";
import assert from "node:assert/strict";
import { isoClock } from "../src/time.ts";

test("isoClock writes every instant as toISOString does, within a millisecond and a second, across seconds and back", () => {
  const clock = isoClock();
  const start = Date.UTC(2026, 10, 26, 23, 59, 58, 990);
  // Forward in small steps across a second, a minute, an hour, a day and a month; then back.
  const instants = [...Array.from({ length: 3000 }, (_, i) => start + i * 7), start - 86_400_000, start];
  for (const ms of instants) {
    assert.equal(clock(ms), new Date(ms).toISOString());
    // The same millisecond again, and within it (Date drops the fraction too).
    assert.equal(clock(ms), new Date(ms).toISOString());
    assert.equal(clock(ms + 0.5), new Date(ms).toISOString());
  }
  for (const ms of [0, 1, 999, 1000, Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(1900, 0, 1)]) {
    assert.equal(isoClock()(ms), new Date(ms).toISOString());
  }
});

test("isoClock of now is now, in the same form", () => {
  const before = Date.now();
  const text = isoClock()(Date.now());
  assert.ok(Date.parse(text) >= before && Date.parse(text) <= Date.now());
  assert.match(text, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});
