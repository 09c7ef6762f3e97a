/**
 * `src/time.ts`: UTC days, hours and the service's instant format, across the years toISOString
 * cannot write plainly; and the wait a Retry-After value asks for.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ceilDay,
  ceilHour,
  DAY_MS,
  dayKey,
  dayRange,
  dayStart,
  formatInstant,
  HOUR_MS,
  retryAfterMs,
} from "../src/time.ts";

test("formatInstant writes +00:00 instants, with milliseconds on request, past year 9999 too", () => {
  const ms = Date.UTC(2026, 10, 26, 23, 59, 58, 990);
  assert.equal(formatInstant(ms), "2026-11-26T23:59:58+00:00");
  assert.equal(formatInstant(ms, true), "2026-11-26T23:59:58.990+00:00");
  assert.equal(formatInstant(0), "1970-01-01T00:00:00+00:00");
  assert.equal(formatInstant(Date.UTC(10000, 0, 1, 1, 2, 3, 4), true), "10000-01-01T01:02:03.004+00:00");
});

test("a day key and its start go there and back, and whole hours and days round up", () => {
  for (const key of ["1970-01-01", "2024-02-29", "2026-12-31"]) assert.equal(dayKey(dayStart(key)), key);
  assert.equal(dayKey(Date.UTC(2026, 0, 1, 23, 59)), "2026-01-01");
  assert.equal(ceilHour(Date.UTC(2026, 0, 1, 0, 0, 1)), Date.UTC(2026, 0, 1, 1));
  assert.equal(ceilHour(Date.UTC(2026, 0, 1, 5)), Date.UTC(2026, 0, 1, 5));
  assert.equal(ceilDay(Date.UTC(2026, 0, 1, 0, 1)), Date.UTC(2026, 0, 2));
  const start = Date.UTC(2026, 0, 1, 12);
  assert.deepEqual(dayRange(start, start + 2 * DAY_MS), {
    from: Date.UTC(2026, 0, 2),
    to: Date.UTC(2026, 0, 4),
  });
  assert.deepEqual(dayRange(start, start + HOUR_MS), {
    from: Date.UTC(2026, 0, 2),
    to: Date.UTC(2026, 0, 2),
  });
});

test("Retry-After is read as seconds or as an HTTP date; anything else is ignored", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryAfterMs("7", now), 7000);
  assert.equal(retryAfterMs("Thu, 01 Jan 2026 00:00:30 GMT", now), 30_000);
  assert.equal(retryAfterMs("Wed, 31 Dec 2025 00:00:00 GMT", now), 0, "a date in the past means now");
  assert.equal(retryAfterMs("soon", now), undefined);
  for (const odd of ["", " ", "1.5", "-3", "1e3"]) assert.equal(retryAfterMs(odd, now), undefined, odd);
  assert.equal(retryAfterMs(" 7 ", now), 7000, "spaces around are allowed");
  assert.equal(retryAfterMs(undefined, now), undefined);
});
