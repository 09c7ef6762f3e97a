/** `scripts/bench-instructions.ts`: a window's requests shared among its connections. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { shares } from "../scripts/bench-instructions.ts";

test("a window's requests are shared as evenly as they go among the connections, all of them sent", () => {
  assert.deepEqual(shares(1000, 1), [1000]);
  assert.deepEqual(
    shares(1000, 25),
    Array.from({ length: 25 }, () => 40),
  );
  assert.deepEqual(shares(10, 3), [3, 3, 4]);
  assert.deepEqual(shares(2, 4), [0, 1, 0, 1]);
  for (let parts = 1; parts <= 100; parts++) {
    const sent = shares(1000, parts);
    assert.equal(sent.length, parts);
    assert.equal(
      sent.reduce((a, b) => a + b, 0),
      1000,
    );
    assert.ok(Math.max(...sent) - Math.min(...sent) <= 1, `${parts}: ${sent.join(",")}`);
  }
});
