/**
 * Upgrades: a store written by release 0.1.0 (test/fixtures/store-0.1.0, written by that release)
 * is served with the records it served then, verify-store tells it outdated, not damaged, and an
 * upgrade (the script, or a server by itself after it starts) rewrites its packs; versions; names.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runKeysCli } from "../src/keys/keys-cli.ts";
import { isKeyName } from "../src/keys/key-name.ts";
import { loadManifest } from "../src/store/manifest.ts";
import { outdatedFiles, upgradeInBackground, upgradeStore } from "../src/store/migrations.ts";
import { encodePack, packState, unpackDay } from "../src/store/month-pack.ts";
import { parseDay } from "../src/store/day-file.ts";
import { checkStore } from "../src/store/verify-store.ts";
import { writeMonthPack } from "../src/store/write-month-pack.ts";
import { VERSION } from "../src/version.ts";
import { startServer, startServerProcess, tempDir } from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..");
const FIXTURE = join(import.meta.dirname, "fixtures", "store-0.1.0");
const ANSWERS = JSON.parse(readFileSync(join(FIXTURE, "answers.json"), "utf8")) as Record<
  string,
  { status: number; content_type: string; body: string }
>;
const OLD_KEY = readFileSync(join(FIXTURE, "key.txt"), "utf8").trim();

/** A copy of the 0.1.0 store to change. */
function oldStore(t: Parameters<typeof tempDir>[0]): string {
  const dir = tempDir(t);
  cpSync(join(FIXTURE, "store"), dir, { recursive: true });
  return dir;
}

// The records of an answer: JSON's data, CSV's text (meta may gain fields from release to release).
function records(contentType: string, body: string): unknown {
  return contentType.startsWith("application/json") ? (JSON.parse(body) as { data: unknown }).data : body;
}

async function sameRecordsAsRelease(t: Parameters<typeof tempDir>[0], dir: string): Promise<void> {
  // The old key has the default limits: the defaults are raised for the thirteen requests.
  const server = await startServer(t, dir, { limits: { normalized_data: 100, features: 100 } });
  for (const [path, old] of Object.entries(ANSWERS)) {
    // The key that release made still works.
    // That release's grid stress was v1, which 1.6 keeps with version=v1.
    const asked = path.includes("/features/grid-stress") ? `${path}&version=v1` : path;
    const res = await server.get(asked, { headers: { "X-API-KEY": OLD_KEY } });
    assert.equal(res.status, old.status, path);
    assert.deepEqual(records(old.content_type, await res.text()), records(old.content_type, old.body), path);
  }
}

function verifyScript(dir: string): { code: number | null; json: Record<string, unknown> } {
  const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/verify-store.ts", "--json"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir },
    encoding: "utf8",
  });
  return { code: run.status, json: JSON.parse(run.stdout) as Record<string, unknown> };
}

test("a 0.1.0 store is outdated, not damaged: verify-store exits 0 and names the packs to rewrite", (t) => {
  const dir = oldStore(t);
  const { code, json } = verifyScript(dir);
  assert.equal(code, 0);
  assert.equal(json.state, "outdated");
  assert.deepEqual(json.problems, []);
  assert.deepEqual(
    (json.outdated as { file: string }[]).map((o) => o.file),
    ["readings/2024-01.pack", "readings/2024-02.pack"],
  );
  assert.equal(json.real_days, 5);
});

test("a 0.1.0 store serves the records 0.1.0 served, before and after npm run upgrade-store", async (t) => {
  const dir = oldStore(t);
  await sameRecordsAsRelease(t, dir);
  const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/upgrade-store.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir },
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /readings\/2024-01\.pack: rewrite the month pack in format 2/);
  assert.match(run.stderr, /Upgraded 2 files .*; the store is whole\./);
  assert.equal(checkStore(dir).state, "whole");
  for (const month of ["2024-01", "2024-02"]) {
    const pack = readFileSync(join(dir, "readings", `${month}.pack`));
    assert.equal(packState(pack), "current");
    // Every stored day of the month is in the new pack, as its day file has it.
    for (const [key, entry] of loadManifest(dir)) {
      if (!key.startsWith(month)) continue;
      const day = parseDay(readFileSync(join(dir, "readings", `${key}.jsonl`), "utf8"), key);
      assert.deepEqual(unpackDay(pack, key, entry.hash)?.hours, day.hours, key);
    }
  }
  await sameRecordsAsRelease(t, dir);
  assert.deepEqual(upgradeStore(dir), [], "a second upgrade has nothing to do");
});

test("a server upgrades an old store by itself after it starts, and says so", async (t) => {
  const dir = oldStore(t);
  const started = await startServerProcess(t, dir, {
    ready: (printed) => (printed.match(/Upgraded readings\/2024-0[12]\.pack/g) ?? []).length === 2,
  });
  const stderr = started.stderr();
  assert.match(stderr, new RegExp(`Grid Data Service ${VERSION.replaceAll(".", "\\.")} listening on`));
  assert.equal(checkStore(dir).state, "whole");
});

test("verify-store tells the three states apart: whole (0), outdated (0), damaged (1, naming the file)", async (t) => {
  const dir = oldStore(t);
  assert.equal(verifyScript(dir).json.state, "outdated");
  await upgradeInBackground(dir, () => {});
  assert.deepEqual(verifyScript(dir), {
    code: 0,
    json: { state: "whole", real_days: 5, sample_days: 0, problems: [], outdated: [] },
  });
  writeFileSync(join(dir, "readings", "2024-01-31.jsonl"), "cut");
  const damaged = verifyScript(dir);
  assert.equal(damaged.code, 1);
  assert.equal(damaged.json.state, "damaged");
  assert.deepEqual(
    (damaged.json.problems as { file: string }[]).map((p) => p.file),
    ["readings/2024-01-31.jsonl"],
  );
});

test("a pack from a newer release, or cut, is damage, not a migration", (t) => {
  const dir = oldStore(t);
  const pack = readFileSync(join(dir, "readings", "2024-01.pack"));
  const newer = Buffer.from(pack);
  newer.writeUInt16LE(99, 4);
  assert.equal(packState(newer), "unreadable");
  assert.equal(packState(pack.subarray(0, pack.length - 8)), "unreadable");
  assert.equal(packState(pack), "outdated");
  assert.equal(packState(encodePack([])), "current");
  writeFileSync(join(dir, "readings", "2024-02.pack"), newer);
  assert.deepEqual(
    outdatedFiles(dir).map((o) => o.file),
    ["readings/2024-01.pack"],
  );
  assert.equal(checkStore(dir).state, "damaged");
});

test("a pack is never made from a day file that no longer has the manifest's hash", (t) => {
  const dir = oldStore(t);
  const manifest = loadManifest(dir);
  writeFileSync(
    join(dir, "readings", "2024-01-30.jsonl"),
    readFileSync(join(dir, "readings", "2024-01-31.jsonl")),
  );
  rmSync(join(dir, "readings", "2024-01.pack"));
  writeMonthPack(join(dir, "readings"), "2024-01", manifest, () => undefined);
  const pack = readFileSync(join(dir, "readings", "2024-01.pack"));
  assert.equal(unpackDay(pack, "2024-01-30", manifest.get("2024-01-30")!.hash), undefined);
  assert.notEqual(unpackDay(pack, "2024-01-31", manifest.get("2024-01-31")!.hash), undefined);
});

test("/healthz says the version of package.json", async (t) => {
  const server = await startServer(t, oldStore(t));
  const body = (await (await server.raw("/healthz")).json()) as { version: string };
  const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  assert.equal(body.version, version);
  assert.match(version, /^\d+\.\d+\.\d+$/);
});

test("a key's name refuses Unicode bidirectional controls, and allows other Unicode", (t) => {
  for (const c of ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"])
    assert.equal(isKeyName(`invoice${c}fdp.exe`), false, c.codePointAt(0)!.toString(16));
  assert.equal(isKeyName("Prévisions ⚡ desk"), true);
  assert.equal(isKeyName("x".repeat(100)), true);
  assert.equal(isKeyName("x".repeat(101)), false);
  const dir = tempDir(t);
  const out: string[] = [];
  const io = { stdout: (s: string) => out.push(s), stderr: (s: string) => out.push(s) };
  const code = runKeysCli(["create", "--name", "a\u202eb", "--account", "desk"], {
    dir,
    env: {},
    io,
    accounts: () => ["desk"],
  });
  assert.equal(code, 2);
  assert.match(out.join(""), /bidirectional controls/);
});
