/** `src/source/sast-stamp.ts`: the portal's SAST hour stamps to UTC instants. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSastStamp } from "../src/source/sast-stamp.ts";

const utc = (iso: string) => Date.parse(iso);

test("both portal forms are SAST, two hours ahead of UTC", () => {
  assert.equal(parseSastStamp("2018-04-01 12:00:00 AM"), utc("2018-03-31T22:00:00Z"));
  assert.equal(parseSastStamp("2018-04-01 12:00:00 PM"), utc("2018-04-01T10:00:00Z"));
  assert.equal(parseSastStamp("2018-04-01 01:00:00 pm"), utc("2018-04-01T11:00:00Z"));
  assert.equal(parseSastStamp("2023-02-14 13:00:00"), utc("2023-02-14T11:00:00Z"));
  assert.equal(parseSastStamp(" 2023-02-14T00:00 "), utc("2023-02-13T22:00:00Z"));
});

test("anything else is a SyntaxError naming the value", () => {
  for (const [text, why] of [
    ["2023-02-14", /not a portal timestamp/],
    ["2023-02-14 13:30:00", /not the beginning of an hour/],
    ["2023-02-14 13:00:05", /not the beginning of an hour/],
    ["2023-02-14 24:00:00", /no hour 24/],
    ["2023-02-14 00:00:00 AM", /no hour 0 on a 12-hour clock/],
    ["2023-02-29 01:00:00", /not a calendar date/],
  ] as const) {
    assert.throws(
      () => parseSastStamp(text),
      (e: unknown) => e instanceof SyntaxError && why.test(e.message),
      text,
    );
  }
});
