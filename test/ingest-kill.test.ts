import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { parseDay, serializeDay } from "../src/store/day-file.ts";
import { dayAsOf, readRevisions } from "../src/store/revisions.ts";
import { killWhen, sampleAndUpdate, snapshotDir, tempDir } from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..");

function runIngest(dataDir: string, file: string) {
  return spawn(process.execPath, ["--import", "tsx", "scripts/ingest.ts", file], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

test("an ingest killed part-way, then re-run, gives the same store as one uninterrupted run", async (t) => {
  const { before, update } = sampleAndUpdate(t, 200);

  const reference = tempDir(t);
  ingestFiles([before, update], { dir: reference });
  const expected = snapshotDir(reference);

  const dir = tempDir(t);
  ingestFiles([before], { dir });
  const old = snapshotDir(dir);
  const between = Date.now();
  const days = readdirSync(join(dir, "readings")).sort();
  const firstDay = join(dir, "readings", days[0]!);
  const firstMtime = statSync(firstDay).mtimeMs;

  // Kill the update as soon as it has replaced its first day file.
  const child = runIngest(dir, update);
  const killedAt = await killWhen(child, () => statSync(firstDay).mtimeMs !== firstMtime, "part-way");
  t.diagnostic(`killed ${killedAt}`);

  // Every day file is whole: either its old bytes or its new bytes, never a mix.
  const killed = snapshotDir(dir);
  let replaced = 0;
  for (const [name, text] of Object.entries(killed)) {
    if (!name.startsWith("readings/")) continue;
    if (name.includes(".tmp-")) continue; // a temp file the kill left behind; readers ignore it
    // Day files and month packs are each whole: old bytes or new, never a mix.
    assert.ok(text === old[name] || text === expected[name], `${name} is neither old nor new`);
    if (!name.endsWith(".jsonl")) continue;
    if (text !== old[name]) replaced++;
    parseDay(text, name.slice("readings/".length, -".jsonl".length));
  }
  if (killedAt === "part-way")
    assert.ok(replaced >= 1 && replaced < days.length, `${replaced} of ${days.length} replaced`);

  const rerun = runIngest(dir, update);
  const code = await new Promise((resolve) => rerun.on("exit", resolve));
  assert.equal(code, 0);
  // The same store; the revision history differs (it recorded two ingests, one of them killed).
  const withoutHistory = (files: Record<string, string>) =>
    Object.fromEntries(Object.entries(files).filter(([name]) => !name.startsWith("revisions/")));
  const after = snapshotDir(dir);
  assert.deepEqual(withoutHistory(after), withoutHistory(expected));
  // And the history still rebuilds every day as it was before the update, killed run and all.
  for (const name of Object.keys(old).filter((n) => n.startsWith("readings/") && n.endsWith(".jsonl"))) {
    const key = name.slice("readings/".length, -".jsonl".length);
    const rebuilt = dayAsOf(parseDay(after[name]!, key), readRevisions(dir, key), between);
    assert.equal(serializeDay(rebuilt), old[name], `${key} as it was before the update`);
  }
});
