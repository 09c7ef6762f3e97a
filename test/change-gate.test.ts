import { test } from "node:test";
import assert from "node:assert/strict";
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createChangeGate, createRecheck, SAFETY_MS } from "../src/files/change-gate.ts";
import { tempDir } from "./helpers.ts";

test("a file renamed into the directory changes the gate's version at the next turn's poll", async (t) => {
  const dir = tempDir(t);
  // A clock far ahead of the directory's times: no stamp is racy.
  const gate = createChangeGate(dir, () => Date.now() + 60_000);
  const first = gate.poll();
  assert.equal(gate.poll(), first, "nothing changed");
  writeFileSync(join(dir, "keys.json.tmp"), "{}");
  renameSync(join(dir, "keys.json.tmp"), join(dir, "keys.json"));
  assert.equal(gate.poll(), first, "within one turn of the event loop, one look serves every request");
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(gate.poll() > first, "the next turn looks again");
});

test("a stamp from the same moment is not trusted: every poll counts as a change until it ages", async (t) => {
  const dir = tempDir(t);
  let now = Date.now();
  const gate = createChangeGate(dir, () => now);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  writeFileSync(join(dir, "a"), "");
  const a = gate.poll();
  await turn();
  const b = gate.poll();
  assert.ok(b > a, "a change in the same clock tick as the look could be missed: count it");
  now += 1000;
  await turn();
  const c = gate.poll();
  await turn();
  assert.equal(gate.poll(), c, "once the stamp has aged, an unchanged directory is unchanged");
});

test("a reader rechecks when the gate moved, or a second has passed (a file edited in place)", () => {
  let version = 0;
  let now = 0;
  const gate = {
    poll: () => version,
    get version() {
      return version;
    },
    get polledAt() {
      return now;
    },
  };
  const recheck = createRecheck(gate);
  assert.equal(recheck(), true, "the first look");
  assert.equal(recheck(), false);
  version++;
  assert.equal(recheck(), true, "the directory changed");
  assert.equal(recheck(), false);
  now += SAFETY_MS - 1;
  assert.equal(recheck(), false, "the gate's clock, not the reader's own, times the recheck");
  now += 1;
  assert.equal(recheck(), true, "a second later, whatever the directory says");
  assert.equal(createRecheck(undefined)(), true);
  const alone = createRecheck(undefined);
  alone();
  assert.equal(alone(), true, "without a gate, every look is a recheck");
});

test("a gate never polled has no clock: its readers recheck every time, as without a gate", () => {
  const gate = { poll: () => 0, version: 0, polledAt: -Infinity };
  const recheck = createRecheck(gate);
  assert.equal(recheck(), true);
  assert.equal(recheck(), true);
});

test("the gate's clock is read once per turn, at its poll", async (t) => {
  const dir = tempDir(t);
  let reads = 0;
  const gate = createChangeGate(dir, () => ++reads * 1000);
  assert.equal(gate.polledAt, -Infinity);
  gate.poll();
  gate.poll();
  assert.equal(gate.polledAt, 1000);
  assert.equal(reads, 1, "one reading for the turn");
  await new Promise((resolve) => setImmediate(resolve));
  gate.poll();
  assert.equal(gate.polledAt, 2000, "the next turn reads it afresh");
});
