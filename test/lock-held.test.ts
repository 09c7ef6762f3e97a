import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readUsage } from "../src/keys/key-file.ts";
import { startServer, tempDir } from "./helpers.ts";

// Makes a live process that is not us hold the lock at `lock` for `ms`, as another process would
// while it writes; returns whether it has let go yet.
function heldBy(t: test.TestContext, lock: string, ms: number): () => boolean {
  const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  t.after(() => holder.kill("SIGKILL"));
  writeFileSync(lock, String(holder.pid));
  let released = false;
  const release = setTimeout(() => {
    released = true;
    rmSync(lock, { force: true });
  }, ms);
  t.after(() => clearTimeout(release));
  return () => released;
}

async function fiveRequests(server: Awaited<ReturnType<typeof startServer>>): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const res = await server.get("/api/v1/datasets");
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
}

const usedKeys = (dir: string) => Object.keys(readUsage(dir)).length;

test("another server holding the usage file's lock delays no request; last use is written once it lets go", async (t) => {
  const dir = tempDir(t);
  const server = await startServer(t, dir);
  const released = heldBy(t, join(dir, ".key-usage.lock"), 3000);
  // The first request's last-use write now waits for the lock; the requests after it must not.
  await fiveRequests(server);
  assert.equal(released(), false, "every request was answered while the other process still held the lock");
  assert.equal(usedKeys(dir), 0, "nothing written yet");
  await new Promise((resolve) => setTimeout(resolve, 3500));
  assert.equal(usedKeys(dir), 1, "written after the lock was released");
});

test("a CLI holding the key file's lock delays neither a request nor the last-use write", async (t) => {
  const dir = tempDir(t);
  const server = await startServer(t, dir);
  const released = heldBy(t, join(dir, ".keys.lock"), 3000);
  await fiveRequests(server);
  for (let i = 0; i < 50 && usedKeys(dir) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(usedKeys(dir), 1, "the last use is written under its own lock");
  assert.equal(released(), false, "while the CLI still held the key file's lock");
});
