import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LockBusyError, withLock, withLockAsync } from "../src/files/lock-file.ts";
import { setTimeout as sleep } from "node:timers/promises";
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

test("an asynchronous holder keeps the lock until its promise settles, and a second waits for it", async (t) => {
  const path = join(tempDir(t), "x.lock");
  const order: string[] = [];
  const first = withLockAsync(path, async () => {
    order.push("first in");
    await sleep(60);
    assert.equal(readFileSync(path, "utf8"), String(process.pid), "still held across the await");
    order.push("first out");
    return 1;
  });
  const second = withLockAsync(path, () => {
    order.push("second");
    return 2;
  });
  assert.deepEqual(await Promise.all([first, second]), [1, 2]);
  assert.deepEqual(order, ["first in", "first out", "second"]);
  assert.equal(existsSync(path), false);
  await assert.rejects(
    withLockAsync(path, async () => {
      await sleep(5);
      throw new Error("boom");
    }),
    /boom/,
  );
  assert.equal(existsSync(path), false, "released after a rejection too");
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
