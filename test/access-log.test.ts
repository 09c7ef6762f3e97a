/**
 * `src/http/access-log.ts`: each line is `JSON.stringify` of its entry and a newline, written as
 * the entry comes, one write a line; odd text (the characters JSON escapes, non-ASCII, lone
 * surrogates) and every kind of number read back as they were logged.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type AccessLogEntry, accessLogLine, createAccessLog } from "../src/http/access-log.ts";

const entry = (path: string, i = 0): AccessLogEntry => ({
  time: "2026-11-23T00:00:00.000Z",
  request_id: `r-${i}`,
  method: "GET",
  path,
  status: 200,
  duration_ms: 0.034,
  key: i % 2 === 0 ? null : "gds_abcdefgh",
});

test("a line is one JSON object and a newline, its fields in the documented order", () => {
  const line = accessLogLine(entry("/api/v1/grid/system-state", 1));
  assert.equal(
    line,
    '{"time":"2026-11-23T00:00:00.000Z","request_id":"r-1","method":"GET","path":"/api/v1/grid/system-state","status":200,"duration_ms":0.034,"key":"gds_abcdefgh"}\n',
  );
});

test("odd text and odd numbers make one line each that parses back to the entry", () => {
  const odd: AccessLogEntry[] = [
    { ...entry('/"\\\u0001\n'), request_id: 'x"y', method: "P\\OST", status: 404, duration_ms: 0 },
    { ...entry("/\ud83d\ude00/é/\u2028"), request_id: "é\u007f", key: "k\u2028", duration_ms: 12.5 },
    { ...entry(""), duration_ms: 123456.789 },
  ];
  for (const e of odd) {
    const line = accessLogLine(e);
    assert.equal(line.indexOf("\n"), line.length - 1, "one line");
    assert.deepEqual(JSON.parse(line), e);
  }
  assert.equal(JSON.parse(accessLogLine({ ...entry("/"), duration_ms: NaN })).duration_ms, null);
});

test("each entry is written at once, in order, one write a line", () => {
  const writes: string[] = [];
  const log = createAccessLog((line) => writes.push(line));
  const entries = Array.from({ length: 50 }, (_, i) => entry(`/p/${i}`, i));
  for (const e of entries) log(e);
  assert.deepEqual(writes, entries.map(accessLogLine));
});
