/**
 * The pull's archive and its edges: the replay's refusals, a torn log, the acceptance of a header
 * that cannot be accepted, 1.3's pull state, and a disk that fills during a pull.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pullPortal } from "../src/pull/pull.ts";
import { portalFile } from "../src/pull/portal-files.ts";

/** The three files the tests' downloads hold of the portal's eight. */
const THREE_FILES = [
  "Station_Build_Up.csv",
  "System_hourly_actual_and_forecasted_demand.csv",
  "Hourly_Generation.csv",
];
import { readPullState, writePullState } from "../src/pull/pull-state.ts";
import { replayArchive, ReplayError } from "../src/pull/replay.ts";
import { AcceptError, acceptHeader } from "../src/pull/accept-header.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { REAL_DATA_DIR, ingestTexts, runScript, skipUnless, snapshotDir, tempDir } from "./helpers.ts";
import { startPortal } from "./portal-stand-in.ts";

const SNAPSHOT = join(REAL_DATA_DIR, "portal_snapshot_2023-02-21");
const SKIP = skipUnless(existsSync(SNAPSHOT), `the portal snapshot is not at ${SNAPSHOT}`);
const NOW = Date.parse("2023-02-21T10:00:00Z");
const FAST = { timeoutMs: 2000, attempts: 2, backoffMs: 5, maxBackoffMs: 20 };
const SPECS = THREE_FILES.map((name) => portalFile(name)!);

async function pulledStore(t: Parameters<typeof tempDir>[0]) {
  const stand = await startPortal(t);
  for (const file of THREE_FILES) stand.publish(file, readFileSync(join(SNAPSHOT, file)));
  const dir = tempDir(t);
  const result = await pullPortal({ dir, root: stand.root, files: SPECS, policy: FAST, now: () => NOW });
  assert.equal(result.ok, true);
  return { stand, dir };
}

test(
  "the replay refuses a store that holds real data, and a missing archive, saying what to do",
  { skip: SKIP },
  async (t) => {
    const { dir } = await pulledStore(t);
    assert.throws(
      () => replayArchive(dir),
      (error: unknown) =>
        error instanceof ReplayError &&
        /already holds 59 days of data: replay into an empty DATA_DIR, e\.g\. DATA_DIR=.*-rebuilt npm run --silent replay-archive -- /.test(
          error.message,
        ),
    );
    assert.throws(() => replayArchive(tempDir(t), join(dir, "nowhere")), /There is no archive at/);
    // A sample store is no obstacle: the replay's first real file removes the sample, as any ingest's.
    const sample = tempDir(t);
    ingestTexts(sample, { "s.csv": generateSampleExport({ firstDay: "2025-01-01", days: 3 }) });
    const replay = replayArchive(sample, join(dir, "archive"));
    assert.equal(replay.outcomes.length, 3);
    assert.equal(replay.outcomes[0]!.outcome.sampleDaysRemoved, 4, "3 SAST days touch 4 UTC days");
  },
);

test(
  "a torn last line of the log is passed over and counted; the rest replays",
  { skip: SKIP },
  async (t) => {
    const { dir } = await pulledStore(t);
    appendFileSync(join(dir, "archive", "downloads.jsonl"), '{"at":"2023-02-21T11:00:00.000Z","file":"Stat');
    const rebuilt = tempDir(t);
    const replay = replayArchive(rebuilt, join(dir, "archive"));
    assert.equal(replay.passed, 1);
    assert.deepEqual(
      replay.outcomes.map((o) => o.outcome.result),
      ["ingested", "ingested", "ingested"],
    );
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "scripts/replay-archive.ts", join(dir, "archive")],
      {
        cwd: join(import.meta.dirname, ".."),
        env: { ...process.env, DATA_DIR: tempDir(t) },
        encoding: "utf8",
      },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^Replayed 3 downloads into .* 3 ingested, 0 unchanged, 0 refused; 1 log lines passed over/,
    );
  },
);

test(
  "--accept-header needs a header refusal, and a header with a timestamp column",
  { skip: SKIP },
  async (t) => {
    const { dir } = await pulledStore(t);
    const spec = portalFile("Station_Build_Up.csv")!;
    assert.throws(
      () => acceptHeader(dir, spec, { now: () => NOW }),
      (e: unknown) => e instanceof AcceptError && /has no changed header to accept/.test(e.message),
    );
    const state = readPullState(dir);
    state.files[spec.name] = {
      ...state.files[spec.name],
      refused: {
        at: new Date(NOW).toISOString(),
        kind: "header",
        reason: "x",
        header: ["thermal_generation"],
      },
    };
    writePullState(dir, state);
    assert.throws(() => acceptHeader(dir, spec, { now: () => NOW }), /names no timestamp column/);
    assert.equal(readPullState(dir).files[spec.name]!.refused!.kind, "header", "still refused");
  },
);

test(
  "1.3's pull state (format 1) is read, and rewritten as format 2 by the next pull",
  { skip: SKIP },
  async (t) => {
    const stand = await startPortal(t);
    for (const file of THREE_FILES) stand.publish(file, readFileSync(join(SNAPSHOT, file)));
    const dir = tempDir(t);
    const link = `${stand.root}wp-content/uploads/2023/02/Station_Build_Up.csv`;
    writeFileSync(
      join(dir, "pull-state.json"),
      JSON.stringify({
        format: 1,
        files: {
          "Station_Build_Up.csv": {
            url: link,
            etag: '"old"',
            header: "Date_Time_Hour_Beginning;...",
            ingested: "2023-02-20T10:00:00.000Z",
          },
        },
      }),
    );
    assert.deepEqual(readPullState(dir).files["Station_Build_Up.csv"], {
      link,
      etag: '"old"',
      lastModified: undefined,
      ingested: "2023-02-20T10:00:00.000Z",
    });
    await pullPortal({ dir, root: stand.root, files: SPECS, policy: FAST, now: () => NOW });
    assert.equal(JSON.parse(readFileSync(join(dir, "pull-state.json"), "utf8")).format, 2);
  },
);

const canMount = process.getuid?.() === 0 && spawnSync("mount", ["--version"]).status === 0;

test(
  "a disk that fills during a pull: one line, exit 1, the store as it was, and the next pull completes",
  { skip: SKIP || skipUnless(canMount, "needs root to mount a small tmpfs (run the tests as root)") },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "gds-pull-full-"));
    const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir]);
    assert.equal(mounted.status, 0, String(mounted.stderr));
    t.after(() => {
      spawnSync("umount", ["-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    });
    const stand = await startPortal(t);
    for (const file of THREE_FILES) stand.publish(file, readFileSync(join(SNAPSHOT, file)));
    const run = () =>
      runScript("scripts/pull.ts", [], {
        ...process.env,
        DATA_DIR: dir,
        PORTAL_URL: stand.root,
        PULL_BACKOFF_S: "0.01",
        PORTAL_FILES: THREE_FILES.join(","),
      });
    const first = await run();
    assert.equal(first.code, 0, first.stderr);
    const stored = () =>
      Object.fromEntries(
        Object.entries(snapshotDir(dir)).filter(([n]) => /^(readings|revisions)\/|^manifest/.test(n)),
      );
    const before = stored();
    // Fill the disk, then publish a new day's files.
    const filler = join(dir, "filler");
    spawnSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=4k", "count=4096"]);
    const text = readFileSync(join(SNAPSHOT, "Hourly_Generation.csv"), "utf8").replace(
      "1135,713",
      "1135,714",
    );
    stand.publish("Hourly_Generation.csv", text, { name: "Hourly_Generation-1.csv" });
    const full = await run();
    assert.equal(full.code, 1);
    assert.match(full.stderr, /^Pull FAILED: .*(ENOSPC|no space left)/im);
    assert.equal(full.stderr.split("\n").filter((l) => l.startsWith("Pull FAILED")).length, 1);
    assert.deepEqual(stored(), before, "the store is as it was");
    assert.deepEqual(
      Object.keys(snapshotDir(dir)).filter((n) => n.includes(".tmp-")),
      [],
      "no temp file is left behind",
    );
    rmSync(filler);
    const next = await run();
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stderr, /Hourly_Generation.csv: 0 hours added, 1 revised/);
  },
);
