/** Faults while ingest writes: a kill at random points, and a full disk. */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { parseDay } from "../src/store/day-file.ts";
import { verifyStore } from "../src/store/verify-store.ts";
import { neverWritten, writeState } from "../src/store/pending-ingest.ts";
import {
  CAN_MOUNT,
  fillDisk,
  NEEDS_MOUNT,
  sampleAndUpdate,
  skipUnless,
  smallDisk,
  snapshotDir,
  startServer,
  tempDir,
  writeFile,
} from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..");
const data = (files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).filter(([name]) => !name.startsWith("revisions/")));

test("an ingest killed at random points always leaves whole files, and a re-run completes the store", async (t) => {
  const { before, update } = sampleAndUpdate(t, 200);
  const reference = tempDir(t);
  ingestFiles([before, update], { dir: reference });
  const expected = data(snapshotDir(reference));

  for (let run = 0; run < 4; run++) {
    const dir = tempDir(t);
    ingestFiles([before], { dir });
    const old = snapshotDir(dir);
    const delay = 100 + Math.floor(Math.random() * 900);
    t.diagnostic(`run ${run}: killed after ${delay} ms`);
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/ingest.ts", update], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir },
      stdio: "ignore",
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), delay);
    await new Promise((resolve) => child.on("exit", resolve));
    clearTimeout(timer);

    for (const [name, text] of Object.entries(snapshotDir(dir))) {
      if (!name.startsWith("readings/") || name.includes(".tmp-")) continue;
      assert.ok(text === old[name] || text === expected[name], `run ${run}: ${name} is neither old nor new`);
      if (name.endsWith(".jsonl")) parseDay(text, name.slice(9, 19));
    }
    const rerun = spawnSync(process.execPath, ["--import", "tsx", "scripts/ingest.ts", update], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir },
    });
    assert.equal(rerun.status, 0, `run ${run}: ${rerun.stderr.toString()}`);
    const after = snapshotDir(dir);
    assert.deepEqual(
      Object.keys(after).filter((name) => name.includes(".tmp-") || /\.lock/.test(name)),
      [],
      `run ${run}: no temp file, lock or claim is left behind`,
    );
    assert.deepEqual(data(after), expected, `run ${run}: the re-run completes the store`);
    assert.deepEqual(verifyStore(dir), []);
  }
});

// A store of ten days on a tmpfs of `size`, served, with what it answers and holds now.
const RANGE = "/api/v1/grid/system-state?start=2025-01-02&end=2025-01-05";
async function servedOnSmallDisk(t: TestContext, size: string) {
  const dir = smallDisk(t, size);
  const src = tempDir(t);
  ingestFiles([writeFile(src, "a.csv", generateSampleExport({ firstDay: "2025-01-01", days: 10 }))], { dir });
  const server = await startServer(t, dir);
  const whole = await (await server.get(RANGE)).text();
  return { dir, src, server, whole, before: data(snapshotDir(dir)) };
}

test(
  "a full disk during ingest leaves the old data whole, with a clear error",
  {
    skip: skipUnless(CAN_MOUNT, NEEDS_MOUNT),
  },
  async (t) => {
    const { dir, src, server, whole, before } = await servedOnSmallDisk(t, "1500k");

    const big = writeFile(src, "b.csv", generateSampleExport({ firstDay: "2025-01-01", days: 120, seed: 9 }));
    assert.throws(() => ingestFiles([big], { dir }), /ENOSPC|no space left/i);
    const after = data(snapshotDir(dir));
    assert.deepEqual(
      Object.keys(after).filter((n) => n.includes(".tmp-")),
      [],
      "no temp file is left behind",
    );
    for (const name of Object.keys(before)) assert.equal(after[name], before[name], `${name} is as it was`);
    assert.deepEqual(verifyStore(dir), []);
    const res = await server.get(RANGE);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), whole);
  },
);

test(
  "a disk that fills after the new days are staged (at a month pack or the manifest) changes no day",
  { skip: skipUnless(CAN_MOUNT, NEEDS_MOUNT) },
  async (t) => {
    const { dir, src, server, whole, before } = await servedOnSmallDisk(t, "4m");
    // One SAST day changed: its two UTC day files (about 60 KB) fit, their month pack (over 300 KB)
    // does not.
    const update = writeFile(
      src,
      "b.csv",
      generateSampleExport({ firstDay: "2025-01-03", days: 1, seed: 9 }),
    );
    const free = fillDisk(dir, 160 * 1024);
    assert.throws(
      () => ingestFiles([update], { dir }),
      (error: Error) => /ENOSPC|no space left/i.test(error.message) && /writeMonthPack/.test(error.stack!),
      "the days were staged, and the pack did not fit",
    );
    const after = data(snapshotDir(dir));
    for (const name of Object.keys(before)) assert.equal(after[name], before[name], `${name} is as it was`);
    // Beside them only the failed ingest's mark, which a store with a manifest reads as settled.
    assert.deepEqual(
      Object.keys(after).filter((name) => !(name in before)),
      ["filler", "ingest-pending.json"],
    );
    assert.deepEqual(verifyStore(dir), []);
    const res = await server.get(RANGE);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), whole);
    // With room again, the same ingest lands whole.
    free();
    assert.deepEqual(ingestFiles([update], { dir }).failures, []);
    assert.deepEqual(verifyStore(dir), []);
    assert.notEqual(await (await server.get(RANGE)).text(), whole);
  },
);

test(
  "a first ingest that fails on a full disk leaves the store interrupted (503, say what to run), never an empty 200",
  { skip: skipUnless(CAN_MOUNT, NEEDS_MOUNT) },
  async (t) => {
    const dir = smallDisk(t, "4m");
    const src = tempDir(t);
    const file = writeFile(src, "ESK1.csv", generateSampleExport({ firstDay: "2025-01-01", days: 20 }));
    const free = fillDisk(dir, 64 * 1024);
    assert.throws(() => ingestFiles([file], { dir }), /ENOSPC|no space left/i);
    assert.equal(writeState(dir).state, "interrupted");
    assert.equal(neverWritten(dir), false, "make serve would not seed it");
    const server = await startServer(t, dir);
    assert.equal((await server.get(RANGE)).status, 503);
    const health = await server.raw("/healthz");
    assert.equal(health.status, 503);
    assert.match(
      ((await health.json()) as { detail: string }).detail,
      /was killed or failed before it finished.*run it again: npm run ingest -- .*ESK1\.csv/,
    );
    free();
    assert.deepEqual(ingestFiles([file], { dir }).failures, []);
    assert.equal((await server.get(RANGE)).status, 200);
    assert.deepEqual(verifyStore(dir), []);
  },
);

test("what a killed ingest leaves (temp files of the manifest and its marks, a waiting claim) is cleaned by the next one", (t) => {
  const dir = tempDir(t);
  const src = tempDir(t);
  ingestFiles([writeFile(src, "a.csv", generateSampleExport({ firstDay: "2024-01-01", days: 3 }))], { dir });
  // pid 999999 is not running: these are what a SIGKILLed ingest leaves behind.
  writeFileSync(join(dir, "manifest.json.tmp-999999-abcdef12"), "{}");
  writeFileSync(join(dir, "ingest-pending.json.tmp-999999-abcdef12"), "{");
  writeFileSync(join(dir, "sample.json.tmp-999999-abcdef12"), "");
  writeFileSync(join(dir, ".ingest.lock.999999-abcdef12"), "999999");
  writeFileSync(join(dir, "keys.json.tmp-999999-abcdef12"), "{}"); // another writer's: not ingest's to remove
  ingestFiles([writeFile(src, "b.csv", generateSampleExport({ firstDay: "2024-01-01", days: 3, seed: 5 }))], {
    dir,
  });
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.includes("999999")),
    ["keys.json.tmp-999999-abcdef12"],
  );
});
