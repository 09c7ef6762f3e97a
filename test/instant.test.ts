import { test } from "node:test";
import assert from "node:assert/strict";
import { parseInstant } from "../src/http/instant.ts";

const ms = (iso: string) => Date.parse(iso);

test("date-times with Z or an offset parse to UTC", () => {
  assert.deepEqual(parseInstant("2024-01-01T00:00:00Z"), {
    ms: ms("2024-01-01T00:00:00Z"),
    fractional: false,
  });
  assert.deepEqual(parseInstant("2024-01-01T02:00:00+02:00"), {
    ms: ms("2024-01-01T00:00:00Z"),
    fractional: false,
  });
  assert.deepEqual(parseInstant("2023-12-31T19:30:00-04:30"), {
    ms: ms("2024-01-01T00:00:00Z"),
    fractional: false,
  });
  assert.deepEqual(parseInstant("2024-01-01T02:00+0200"), {
    ms: ms("2024-01-01T00:00:00Z"),
    fractional: false,
  });
  assert.deepEqual(parseInstant("2024-01-01T02:00:00+02"), {
    ms: ms("2024-01-01T00:00:00Z"),
    fractional: false,
  });
  assert.deepEqual(parseInstant("2024-01-01T02:00:00 02:00"), {
    ms: ms("2024-01-01T00:00:00Z"),
    fractional: false,
  });
});

test("seconds and fractions are optional; a non-zero fraction is remembered", () => {
  assert.deepEqual(parseInstant("2024-01-01T10:15Z"), { ms: ms("2024-01-01T10:15:00Z"), fractional: false });
  assert.deepEqual(parseInstant("2024-01-01T10:15:00.5Z"), {
    ms: ms("2024-01-01T10:15:00.500Z"),
    fractional: true,
  });
  assert.deepEqual(parseInstant("2024-01-01T10:15:00.000Z"), {
    ms: ms("2024-01-01T10:15:00Z"),
    fractional: false,
  });
  assert.deepEqual(parseInstant("2024-01-01T10:15:00.123456Z"), {
    ms: ms("2024-01-01T10:15:00.123Z"),
    fractional: true,
  });
});

test("a bare date means 00:00 UTC, and says it was a date (tz moves it to 00:00 in its zone)", () => {
  assert.deepEqual(parseInstant("2024-02-29"), {
    ms: ms("2024-02-29T00:00:00Z"),
    fractional: false,
    date: true,
  });
});

test("a date-time without an offset is refused as ambiguous", () => {
  assert.equal(parseInstant("2024-01-01T00:00:00"), "no_offset");
  assert.equal(parseInstant("2024-01-01T00:00"), "no_offset");
});

test("impossible dates and times are refused", () => {
  for (const text of [
    "2023-02-29",
    "2024-13-01",
    "2024-00-10",
    "2024-04-31T00:00Z",
    "2024-01-01T24:00:00Z",
    "2024-01-01T10:60Z",
    "2024-01-01T00:00:00+24:00",
  ]) {
    assert.equal(parseInstant(text), "impossible", text);
  }
});

test("other shapes are refused", () => {
  for (const text of [
    "",
    "now",
    "2024/01/01",
    "20240101",
    "2024-1-1",
    "2024-01-01 00:00:00Z",
    "2024-01-01T00Z",
    "1704067200",
  ]) {
    assert.equal(parseInstant(text), "format", text);
  }
});

test("years stay four digits: 1900 to 9999 in UTC, after the offset; anything else is out of range", () => {
  const ok = (text: string, iso: string) => {
    const parsed = parseInstant(text);
    assert.ok(typeof parsed !== "string", `${text}: ${typeof parsed === "string" ? parsed : ""}`);
    assert.equal(new Date(parsed.ms).toISOString(), iso, text);
  };
  ok("1900-01-01", "1900-01-01T00:00:00.000Z");
  ok("1899-12-31T23:00:00-02:00", "1900-01-01T01:00:00.000Z");
  ok("9999-12-31T23:59:59Z", "9999-12-31T23:59:59.000Z");
  ok("9999-12-31T23:59:59.999+00:00", "9999-12-31T23:59:59.999Z");
  for (const text of [
    "1899-12-31T23:59:59Z",
    "0050-01-01",
    "0100-01-01T00:30:00+01:00",
    "9999-12-31T23:00:00-23:59",
    "0000-01-01",
  ]) {
    assert.equal(parseInstant(text), "out_of_range", text);
  }
});
