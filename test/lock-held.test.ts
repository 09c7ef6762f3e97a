import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readUsage } from "../src/keys/key-file.ts";
import { startServer, tempDir, waitFor } from "./helpers.ts";

test("a CLI holding the key store's lock delays no request; last use is written once it lets go", async (t) => {
  const dir = tempDir(t);
  const server = await startServer(t, dir);
  // A live process that is not us holds the lock, as `keys create` would while it writes.
  const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  t.after(() => holder.kill("SIGKILL"));
  const lock = join(dir, ".keys.lock");
  writeFileSync(lock, String(holder.pid));

  // The first request's last-use write now waits for the lock; the requests after it must not.
  for (let i = 0; i < 5; i++) {
    const res = await server.get("/api/v1/datasets");
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  // Every request was answered while the CLI still held the lock.
  assert.equal(readUsage(dir)[Object.keys(readUsage(dir))[0] ?? ""], undefined, "nothing written yet");
  rmSync(lock, { force: true }); // the CLI lets go
  await waitFor(
    () => Object.keys(readUsage(dir)).length === 1,
    "last use written after the lock was released",
  );
});
