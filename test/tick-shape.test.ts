/**
 * `src/http/tick-shape.ts` holds one of Node's own tick objects. What it prevents (a third more
 * instructions a request after an idle period) is measured by `BENCH_PARTS=instructions make
 * bench`; this checks that on this Node it really gets a tick object.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { keepTickShape } from "../src/http/tick-shape.ts";

test("a tick object is kept: two symbol keys, then callback and args, as process.nextTick makes it", () => {
  const kept = keepTickShape() as Record<string | symbol, unknown> | undefined;
  assert.ok(kept !== undefined, "no TickObject was seen: has this Node renamed it?");
  assert.equal(Object.getOwnPropertySymbols(kept).length, 2);
  assert.deepEqual(Object.keys(kept), ["callback", "args"]);
  assert.equal(typeof kept.callback, "function");
  assert.equal(keepTickShape(), kept, "taken once");
});
