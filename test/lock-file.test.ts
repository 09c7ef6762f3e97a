import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LockBusyError, withLock } from "../src/files/lock-file.ts";
import { tempDir } from "./helpers.ts";

test("the lock is held while the function runs and released after, even on throw", (t) => {
  const path = join(tempDir(t), "x.lock");
  const result = withLock(path, () => {
    assert.equal(readFileSync(path, "utf8"), String(process.pid));
    return 42;
  });
  assert.equal(result, 42);
  assert.equal(existsSync(path), false);
  assert.throws(
    () =>
      withLock(path, () => {
        throw new Error("boom");
      }),
    /boom/,
  );
  assert.equal(existsSync(path), false);
});

test("a lock held by a live process makes the other wait, then give up with a clear error", (t) => {
  const path = join(tempDir(t), "x.lock");
  writeFileSync(path, String(process.ppid)); // a live process that is not us
  assert.throws(
    () => withLock(path, () => 1, { waitMs: 50 }),
    (error: unknown) => {
      assert.ok(error instanceof LockBusyError);
      assert.match(error.message, new RegExp(`process ${process.ppid} holds it`));
      return true;
    },
  );
});

test("a lock left by a dead process is taken over", (t) => {
  const path = join(tempDir(t), "x.lock");
  const dead = spawnSync(process.execPath, [
    "-e",
    "process.stdout.write(String(process.pid))",
  ]).stdout.toString();
  writeFileSync(path, dead);
  assert.equal(
    withLock(path, () => "ran", { waitMs: 0 }),
    "ran",
  );
});
