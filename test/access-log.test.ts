/**
 * `src/http/access-log.ts`: one write per turn of the event loop, every line whole and in order,
 * UTF-8 intact, a full buffer written early, a line longer than the buffer written alone.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createAccessLog } from "../src/http/access-log.ts";
import { type AccessLogEntry, accessLogLine } from "../src/http/app.ts";

const entry = (path: string, i = 0): AccessLogEntry => ({
  time: "2026-11-23T00:00:00.000Z",
  request_id: `r-${i}`,
  method: "GET",
  path,
  status: 200,
  duration_ms: 0.034,
  key: i % 2 === 0 ? null : "gds_abcdefgh",
});

test("lines of one turn go out in one write, whole and in order, and the next turn starts afresh", async () => {
  const writes: Buffer[] = [];
  const log = createAccessLog((chunk) => writes.push(chunk));
  const entries = Array.from({ length: 50 }, (_, i) => entry(`/p/${i}`, i));
  for (const e of entries) log.log(e);
  assert.equal(writes.length, 0, "nothing is written on the request path");
  await nextTurn();
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.toString(), entries.map((e) => accessLogLine(e) + "\n").join(""));
  log.log(entry("/é/😀/\u2028"));
  log.flush();
  assert.equal(writes.length, 2, "flush writes at once (on shutdown)");
  assert.equal(JSON.parse(writes[1]!.toString()).path, "/é/😀/\u2028");
  log.flush();
  await nextTurn();
  assert.equal(writes.length, 2, "nothing more to write");
});

test("a full buffer is written early, and the written chunk is a copy the buffer does not change", async () => {
  const writes: Buffer[] = [];
  const log = createAccessLog((chunk) => writes.push(chunk), 1024);
  const entries = Array.from({ length: 40 }, (_, i) => entry(`/a/${"x".repeat(20)}/${i}`, i));
  for (const e of entries) log.log(e);
  await nextTurn();
  assert.ok(writes.length > 1, `${writes.length} writes`);
  assert.ok(writes.every((w) => w.length <= 1024));
  assert.equal(Buffer.concat(writes).toString(), entries.map((e) => accessLogLine(e) + "\n").join(""));
  const long = entry("/" + "y".repeat(2000));
  log.log(entry("/before"));
  log.log(long);
  await nextTurn();
  const tail = Buffer.concat(writes.slice(-2)).toString();
  assert.equal(tail, accessLogLine(entry("/before")) + "\n" + accessLogLine(long) + "\n");
});
