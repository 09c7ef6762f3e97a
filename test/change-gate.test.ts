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
  };
  const recheck = createRecheck(gate, () => now);
  assert.equal(recheck(), true, "the first look");
  assert.equal(recheck(), false);
  version++;
  assert.equal(recheck(), true, "the directory changed");
  assert.equal(recheck(), false);
  now += SAFETY_MS;
  assert.equal(recheck(), true, "a second later, whatever the directory says");
  assert.equal(createRecheck(undefined)(), true);
  const alone = createRecheck(undefined);
  alone();
  assert.equal(alone(), true, "without a gate, every look is a recheck");
});
