/**
 * `src/http/access-log.ts`: each line is exactly `JSON.stringify` of its entry (fuzzed, with the
 * characters JSON escapes, non-ASCII text, lone surrogates and every kind of number); a batch goes
 * out in one write after the flush delay, a full buffer early, a line longer than the buffer alone,
 * and `flush` writes at once.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type AccessLogEntry,
  type PlainText,
  createAccessLog,
  LineMaker,
  plainText,
} from "../src/http/access-log.ts";

// An entry's fields with any text for its time and request id.
type Fields = Omit<AccessLogEntry, "time" | "request_id"> & {
  readonly time: string;
  readonly request_id: string;
};

// A text known to be plain, as the pipeline's times and request ids are.
const plain = (text: string): PlainText => {
  const checked = plainText(text);
  assert.ok(checked !== undefined, text);
  return checked;
};

const entry = (path: string, i = 0): AccessLogEntry => ({
  time: plain("2026-11-23T00:00:00.000Z"),
  request_id: plain(`r-${i}`),
  method: "GET",
  path,
  status: 200,
  duration_ms: 0.034,
  key: i % 2 === 0 ? null : "gds_abcdefgh",
});

// The reference: JSON.stringify of the entry itself (every entry here has its fields in the
// log's order, as the server's do), and a newline.
const reference = (e: Fields) => JSON.stringify(e) + "\n";

// A log's lines come from one maker, which remembers the middle and end of the last line it made:
// every entry of a test goes through the same one, so that remembered and new texts alternate,
// twice (the second time its texts are the ones it saw last). The maker takes only entries whose
// time and request id are plain (as the pipeline's are): fields with others are checked with those
// two made plain, and their other texts as they are. Returns the line, checked against the
// reference.
const maker = new LineMaker();
const encoded = (e: Fields, label = JSON.stringify(e)): string => {
  const asMade: AccessLogEntry = {
    ...e,
    time: plainText(e.time) ?? plain("2026-11-23T00:00:00.000Z"),
    request_id: plainText(e.request_id) ?? plain("r"),
  };
  const line = maker.line(asMade);
  assert.equal(line, reference(asMade), label);
  assert.equal(maker.line(asMade), line, `the same entry again, the same line: ${label}`);
  return line;
};

test("a line is exactly JSON.stringify of its entry, for odd text and every kind of number", () => {
  const odd: Fields[] = [
    { ...entry("/a", 1), duration_ms: 1.234 },
    { ...entry('/"\\\u0001'), request_id: 'x"y', method: "P\\OST", status: 404, duration_ms: 0 },
    { ...entry("/\ud83d\ude00/\ud800/é/\u2028"), request_id: "é\u007f", key: "k\u2028", duration_ms: 12.5 },
    { ...entry("/"), path: "", request_id: "", duration_ms: -0 },
  ];
  const numbers = [0, 1, 0.001, 0.01, 0.1, 0.999, 1.5, 10.25, 123456.789, 2 ** 33 - 0.001, 1e-7, 0.0005];
  for (const n of [
    ...numbers,
    1e21,
    1.7976931348623157e308,
    -1.5,
    NaN,
    Infinity,
    0.1 + 0.2,
    2 ** 43,
    1 / 3,
  ]) {
    odd.push({ ...entry("/n"), duration_ms: n, status: Math.trunc(Math.abs(n)) || 0 });
  }
  for (const e of odd) encoded(e);
});

test("random entries encode as JSON.stringify does", () => {
  const pool = [
    "a",
    "Z",
    "0",
    "/",
    "-",
    "_",
    " ",
    "~",
    '"',
    "\\",
    "\u0000",
    "\u001f",
    "\u007f",
    "é",
    "€",
    "\u2028",
    "\ud83d",
    "\ude00",
    "😀",
  ];
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const text = (max: number) =>
    Array.from({ length: Math.floor(random() * max) }, () => pool[Math.floor(random() * pool.length)]).join(
      "",
    );
  for (let i = 0; i < 3000; i++) {
    const e: Fields = {
      time: new Date(Math.floor(random() * 4e12)).toISOString(),
      request_id: text(20),
      method: text(8),
      path: "/" + text(60),
      status: 100 + Math.floor(random() * 500),
      duration_ms: random() < 0.9 ? Math.round(random() * 1e7) / 1000 : random() * 1e4,
      key: random() < 0.3 ? null : text(12),
    };
    encoded(e);
  }
});

test("one character JSON escapes, in any field, at any place, is escaped as JSON.stringify does", () => {
  // Every character from 0 to 0x7f, two beyond ASCII and two lone surrogates: one at a time, at
  // the start, middle or end of each text field of an otherwise plain entry (the time and request
  // id are plain by their type).
  const odd = [
    ...Array.from({ length: 0x80 }, (_, c) => String.fromCharCode(c)),
    "é",
    "\u2028",
    "\ud800",
    "\udfff",
  ];
  const fields = ["method", "path", "key"] as const;
  for (const c of odd) {
    for (const field of fields) {
      for (const at of [0, 2, 5]) {
        const plain = entry("/plain", 1)[field]!;
        const e = { ...entry("/plain", 1), [field]: plain.slice(0, at) + c + plain.slice(at) };
        encoded(e, `${JSON.stringify(c)} in ${field} at ${at}`);
      }
    }
  }
});

test("a duration in whole microseconds is written as String writes it, across the range", () => {
  const check = (micros: number) => {
    const value = micros / 1000;
    const line = encoded({ ...entry(""), duration_ms: value });
    assert.equal(line.slice(line.indexOf('"duration_ms":') + 14, line.indexOf(',"key"')), String(value));
  };
  for (let m = 0; m < 200_000; m++) check(m);
  for (let i = 0; i < 200_000; i++) check(Math.floor(Math.random() * 2 ** 43));
  for (let e = 0; e <= 43; e++) for (const d of [-1, 0, 1]) check(Math.max(0, 2 ** e + d));
});

test("a batch never passes its size: a line that would take it past goes in the next, one longer than a batch alone", () => {
  for (const e of [entry("/é/path", 1), entry("/plain", 1), entry("/plain", 2)]) {
    const want = Buffer.from(reference(e));
    for (let size = want.length - 2; size <= want.length * 2 + 2; size++) {
      const writes: Buffer[] = [];
      const log = createAccessLog((chunk) => writes.push(chunk), size, 60_000);
      log.log(e);
      log.log(e);
      log.flush();
      const label = `${e.path} in ${size}`;
      if (size < want.length) assert.deepEqual(writes, [want, want], `alone: ${label}`);
      else if (size < want.length * 2) assert.deepEqual(writes, [want, want], `one batch each: ${label}`);
      else assert.deepEqual(writes, [Buffer.concat([want, want])], `one batch: ${label}`);
    }
  }
});

test("lines are gathered and written in one write after the flush delay, whole and in order", async () => {
  const writes: Buffer[] = [];
  const log = createAccessLog((chunk) => writes.push(chunk), 64 * 1024, 20);
  const entries = Array.from({ length: 50 }, (_, i) => entry(`/p/${i}`, i));
  for (const e of entries) log.log(e);
  assert.equal(writes.length, 0, "nothing is written on the request path");
  await sleep(5);
  assert.equal(writes.length, 0, "the batch waits for more lines");
  await sleep(40);
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.toString(), entries.map(reference).join(""));
  log.log(entry("/é/😀/\u2028"));
  log.flush();
  assert.equal(writes.length, 2, "flush writes at once (on shutdown)");
  assert.equal(JSON.parse(writes[1]!.toString()).path, "/é/😀/\u2028");
  log.flush();
  await sleep(40);
  assert.equal(writes.length, 2, "nothing more to write, and the flushed batch's timer is gone");
});

test("a batch of plain lines and UTF-8 ones is written as each line's JSON, in UTF-8", () => {
  const writes: Buffer[] = [];
  const log = createAccessLog((chunk) => writes.push(chunk), 64 * 1024, 60_000);
  // Lines are encoded a few dozen at a time: some groups all plain, some with a UTF-8 line.
  const entries = [entry("/a", 1), entry("/é/😀", 2), { ...entry("/b", 3), key: "k\u2028" }, entry("/c", 4)];
  for (let i = 5; i < 200; i++) entries.push(i % 45 === 0 ? entry(`/é/${i}`, i) : entry(`/p/${i}`, i));
  for (const e of entries) log.log(e);
  log.flush();
  assert.equal(writes.length, 1);
  assert.deepEqual(writes[0], Buffer.from(entries.map(reference).join("")));
});

test("a full buffer is written early, and the written chunk is a copy the buffer does not change", async () => {
  const writes: Buffer[] = [];
  const log = createAccessLog((chunk) => writes.push(chunk), 1024, 10);
  const entries = Array.from({ length: 40 }, (_, i) => entry(`/a/${"x".repeat(20)}/${i}`, i));
  for (const e of entries) log.log(e);
  assert.ok(writes.length > 1, `${writes.length} writes before the delay`);
  await sleep(30);
  assert.ok(writes.every((w) => w.length <= 1024));
  assert.equal(Buffer.concat(writes).toString(), entries.map(reference).join(""));
  const long = entry("/" + "y".repeat(2000));
  log.log(entry("/before"));
  log.log(long);
  await sleep(30);
  const tail = Buffer.concat(writes.slice(-2)).toString();
  assert.equal(tail, reference(entry("/before")) + reference(long));
});
