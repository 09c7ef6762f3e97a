/**
 * `bench/bench-instructions.ts`: a window's requests shared among its connections; and
 * `bench/bench.ts` refusing a bad BENCH_CONNECTIONS.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { shares } from "../bench/bench-instructions.ts";

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

test("make bench refuses a BENCH_CONNECTIONS that is not a whole number from 1 to 100, before any work", () => {
  for (const value of ["0", "101", "2.5", "many"]) {
    const run = spawnSync(process.execPath, ["--import", "tsx", "bench/bench.ts"], {
      cwd: join(import.meta.dirname, ".."),
      env: { ...process.env, BENCH_CONNECTIONS: value, BENCH_PARTS: "instructions" },
      encoding: "utf8",
    });
    assert.notEqual(run.status, 0, value);
    assert.match(
      run.stderr,
      new RegExp(`BENCH_CONNECTIONS must be a whole number from 1 to 100, not "${value}"`),
    );
    assert.doesNotMatch(run.stdout, /Instructions per request/, "nothing was measured");
  }
});
