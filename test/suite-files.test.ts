/**
 * How `make test-suite` runs the files (docs/development.md: "Tests"): the Makefile's
 * OWN_PROCESS_TESTS each in a process of its own, every other file in one shared process
 * (test/together.mjs). Read from the text, so a new file is checked the day it is written.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");

/** The Makefile's OWN_PROCESS_TESTS, backslash-continued lines included. */
function ownProcessTests(): string[] {
  const makefile = readFileSync(join(ROOT, "Makefile"), "utf8");
  const start = makefile.indexOf("\nOWN_PROCESS_TESTS :=");
  assert.ok(start >= 0, "the Makefile names OWN_PROCESS_TESTS");
  const lines: string[] = [];
  for (const line of makefile.slice(start + 1).split("\n")) {
    lines.push(line.replace(/\\$/, ""));
    if (!line.endsWith("\\")) break;
  }
  return lines.join(" ").split(/\s+/).slice(2).filter(Boolean);
}

test("every file OWN_PROCESS_TESTS names exists (make would drop a misspelt one without a word)", () => {
  const named = ownProcessTests();
  assert.ok(named.length > 0);
  for (const file of named) assert.ok(existsSync(join(ROOT, file)), `${file} does not exist`);
});

test("a file that shares the suite's process has no top-level hook and leaves process.env alone", () => {
  const own = new Set(ownProcessTests());
  const files = readdirSync(join(ROOT, "test")).filter((name) => name.endsWith(".test.ts"));
  assert.ok(files.length > own.size);
  for (const name of files) {
    if (own.has(`test/${name}`)) continue;
    const text = readFileSync(join(ROOT, "test", name), "utf8");
    // A hook at the start of a line is the file's own: in the shared process it would be every file's.
    const hook = /^(before|after|beforeEach|afterEach)\(/m.exec(text);
    assert.equal(hook, null, `test/${name}: a top-level ${hook?.[1]} hook; move it into its tests`);
    const env = /process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/.exec(text);
    assert.equal(env, null, `test/${name} changes process.env; give the variable to the process it starts`);
  }
});

test("a test file starts Redis, Chromium and the Python venv only through the run's helpers", () => {
  // Each kind of helper process is paid for once per run (run-helpers.mjs, redis-helpers.ts,
  // dashboard-helpers.ts; the venv once per version of the client, in .cache/): a test file that
  // started its own would pay for it again, maybe once a test.
  const starts =
    /spawnRedis\(|chromium\.(launch|launchServer)\(|["']redis-server["']|["']-m["'],\s*["']venv["']/g;
  const allowed: Record<string, number> = { "python-client.test.ts": 1 }; // the cached venv
  for (const name of readdirSync(join(ROOT, "test")).filter((n) => n.endsWith(".test.ts"))) {
    const found = readFileSync(join(ROOT, "test", name), "utf8").match(starts) ?? [];
    assert.ok(
      found.length <= (allowed[name] ?? 0),
      `test/${name} starts ${found.join(", ")} itself; use startRedis, sharedBrowser or installedClient`,
    );
  }
});
