import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { parseDay, serializeDay } from "../src/store/day-file.ts";
import { dayAsOf, readRevisions } from "../src/store/revisions.ts";
import {
  killWhen,
  sampleAndUpdate,
  snapshotDir,
  startServer,
  startServerProcess,
  tempDir,
} from "./helpers.ts";
import { writeFileSync } from "node:fs";
import { FAILPOINTS } from "../src/files/failpoint.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { neverWritten, writeState } from "../src/store/pending-ingest.ts";
import { verifyStore } from "../src/store/verify-store.ts";

// The store's data, without its history (a killed run adds lines) or its lock and marks.
function data(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files).filter(([name]) =>
      /^readings\/[^/]*\.(jsonl|pack)$|^manifest\.json$|^sample\.json$/.test(name),
    ),
  );
}

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

/** A generated export without the sample's marking column: the service takes it as real data. */
function unmarked(text: string): string {
  return text
    .trimEnd()
    .split("\n")
    .map((line) => line.slice(0, line.lastIndexOf(",")))
    .join("\n")
    .concat("\n");
}

/** Runs the ingest CLI with a failpoint armed; resolves with how it ended. */
function ingestWithFailpoint(dataDir: string, file: string, failpoint?: string) {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/ingest.ts", file], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      ...(failpoint === undefined ? {} : { GDS_FAILPOINT: failpoint }),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
}

test("a real ingest into a sample store killed at every step of its commit: never served empty or half, never seeded over, completed by a re-run", async (t) => {
  const sources = tempDir(t);
  const sample = join(sources, "sample.csv");
  writeFileSync(sample, generateSampleExport({ firstDay: "2025-03-01", days: 20 }));
  const real = join(sources, "ESK1.csv");
  writeFileSync(real, unmarked(generateSampleExport({ firstDay: "2025-03-10", days: 20, seed: 3 })));

  const reference = tempDir(t);
  ingestFiles([sample], { dir: reference });
  ingestFiles([real], { dir: reference });
  const complete = snapshotDir(reference);
  const RANGE = "/api/v1/grid/system-state?start=2025-03-12&end=2025-03-13";
  const wholeStore = await startServer(t, reference);
  const answer = await (await wholeStore.get(RANGE)).text();

  for (const point of FAILPOINTS) {
    const dir = tempDir(t);
    ingestFiles([sample], { dir });
    const sampled = snapshotDir(dir);
    const killed = await ingestWithFailpoint(dir, real, point);
    assert.equal(killed.signal, "SIGKILL", `${point}: the failpoint was reached`);

    // The store is the sample as it was, or the real data whole, or served as 503: never less.
    const server = await startServer(t, dir);
    const res = await server.get(RANGE);
    const state = writeState(dir).state;
    t.diagnostic(`${point}: ${res.status} (${state})`);
    if (res.status === 200) {
      const body = await res.text();
      const meta = (JSON.parse(body) as { meta: { sample?: boolean } }).meta;
      if (meta.sample === true)
        assert.deepEqual(data(snapshotDir(dir)), data(sampled), `${point}: the sample stands`);
      else assert.equal(body, answer, `${point}: the real data, whole`);
    } else {
      assert.equal(res.status, 503, `${point}: ${res.status}`);
      assert.equal(state, "interrupted", point);
      const health = await server.raw("/healthz");
      assert.equal(health.status, 503);
      assert.match(
        ((await health.json()) as { detail: string }).detail,
        /killed or failed before it finished.*run it again: npm run ingest -- .*ESK1\.csv/,
      );
      assert.equal(verifyStore(dir)[0]!.file, "ingest-pending.json", `${point}: verify-store names it`);
    }
    // make serve would not seed it: something was written.
    assert.equal(neverWritten(dir), false, `${point}: not a store to seed`);

    // The re-run, in this process (only the killed run needs its own).
    assert.deepEqual(ingestFiles([real], { dir }).failures, [], `${point}: the re-run`);
    assert.deepEqual(data(snapshotDir(dir)), data(complete), `${point}: the re-run completes the store`);
    assert.equal(await (await server.get(RANGE)).text(), answer, `${point}: served whole`);
    assert.deepEqual(verifyStore(dir), [], point);
  }
});

test("make serve on a store whose ingest was killed does not seed it, and says what to run", async (t) => {
  const sources = tempDir(t);
  const real = join(sources, "ESK1.csv");
  writeFileSync(real, unmarked(generateSampleExport({ firstDay: "2025-03-10", days: 5 })));
  const dir = tempDir(t);
  const killed = await ingestWithFailpoint(dir, real, "write:first-renamed");
  assert.equal(killed.signal, "SIGKILL");
  const before = data(snapshotDir(dir));
  const started = await startServerProcess(t, dir, {
    script: "scripts/serve.ts",
    ready: (printed) => printed.includes(" listening on "),
  });
  assert.match(
    started.stderr(),
    /was killed or failed before it finished\.\nEvery dataset request answers 503 until you run it again: npm run ingest -- .*ESK1\.csv/,
  );
  assert.doesNotMatch(started.stderr(), /SAMPLE DATA/);
  assert.deepEqual(data(snapshotDir(dir)), before, "no sample was written");
});
