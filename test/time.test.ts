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

test("a day key is the UTC calendar day Date gives, every day from 1600 to 2400 and in years 0 and 9999", () => {
  const byDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const spans = [
    [Date.UTC(1600, 0, 1), Date.UTC(2400, 0, 1)],
    // (Date.UTC reads a year below 100 as 1900 and on.)
    [Date.parse("0000-01-01T00:00:00Z"), Date.parse("0002-03-01T00:00:00Z")],
    [Date.UTC(9999, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59, 999)],
  ];
  // Each day's first and last millisecond, and its midday.
  for (const [from, to] of spans)
    for (let day = from!; day <= to!; day += DAY_MS)
      for (const ms of [day, day + DAY_MS / 2, day + DAY_MS - 1])
        assert.equal(dayKey(ms), byDate(ms), String(ms));
  assert.equal(dayKey(Date.UTC(2024, 1, 29, 12)), "2024-02-29");
  assert.equal(dayKey(Date.UTC(1900, 1, 28, 23)), "1900-02-28");
  assert.equal(dayKey(Date.UTC(1900, 2, 1)), "1900-03-01");
  assert.equal(dayKey(Date.parse("0000-02-29T12:00:00Z")), "0000-02-29");
  assert.equal(dayKey(Date.UTC(10000, 0, 1)), "10000-01-01");
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
