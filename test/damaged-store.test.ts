/** A damaged store is never served as data: each kind of damage, what users and operators see, and the repair. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { COLUMN_COUNT } from "../src/source/columns.ts";
import { verifyStore } from "../src/store/verify-store.ts";
import { ingestTexts, startServer, tempDir } from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..");
const DAY = "2025-01-05";
const FILE = join("readings", `${DAY}.jsonl`);
const RANGE = "/api/v1/grid/system-state?start=2025-01-04&end=2025-01-07";
const SOURCE = generateSampleExport({ firstDay: "2025-01-01", days: 10 });

async function store(t: TestContext) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": SOURCE });
  const whole = await (await (await startServer(t, dir)).get(RANGE)).text();
  return { dir, whole, path: (file: string) => join(dir, file) };
}

function flip(bytes: Buffer, at: number): void {
  bytes.writeUInt8(bytes.readUInt8(at) ^ 0x40, at);
}

// verify-store in a child process, without blocking this one: a test that blocks for seconds keeps
// fetch from seeing the server close its idle keep-alive connection (at 5 s), and under load the
// next request then goes out on a closed connection ("other side closed").
function verifyCli(dir: string): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/verify-store.ts"],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: dir }, encoding: "utf8" },
      (error, stdout) =>
        resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout }),
    );
  });
}

/** A damaged day: 503 naming it, health degraded listing it, verify-store naming the file, and re-ingest repairs. */
async function expectDamagedDay(t: TestContext, dir: string, whole: string) {
  const server = await startServer(t, dir); // a fresh process: nothing of the day in memory
  const res = await server.get(RANGE);
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("retry-after"), "600");
  const body = (await res.json()) as { detail: string };
  assert.match(body.detail, new RegExp(`The stored data for ${DAY} is damaged`));
  assert.ok(
    server.errors.some((e) => String(e).includes(FILE)),
    "the log names the file",
  );
  const health = await server.raw("/healthz");
  assert.equal(health.status, 503);
  assert.deepEqual(((await health.json()) as { status: string; damaged_days: string[] }).damaged_days, [DAY]);
  const other = await server.get("/api/v1/grid/system-state?start=2025-01-08&end=2025-01-09");
  assert.equal(other.status, 200, "ranges that do not need the day are served");

  const cli = await verifyCli(dir);
  assert.equal(cli.status, 1);
  assert.match(cli.stdout, new RegExp(`^${FILE.replace(/[.]/g, "\\.")} `, "m"));

  ingestTexts(dir, { "sample.csv": SOURCE });
  const repaired = await server.get(RANGE);
  assert.equal(repaired.status, 200, "re-ingesting the source repairs it, on the running server");
  assert.equal(await repaired.text(), whole);
  assert.equal((await server.raw("/healthz")).status, 200);
  assert.deepEqual(verifyStore(dir), []);
}

test("a day file cut at a line boundary is a 503 naming the day, not a shorter day", async (t) => {
  const { dir, whole, path } = await store(t);
  rmSync(path("readings/2025-01.pack"));
  const lines = readFileSync(path(FILE), "utf8").split("\n");
  writeFileSync(path(FILE), lines.slice(0, 19).join("\n") + "\n");
  await expectDamagedDay(t, dir, whole);
});

test("a day file cut mid-line, with its pack damaged too, is a 503, not a 500", async (t) => {
  const { dir, whole, path } = await store(t);
  const text = readFileSync(path(FILE), "utf8");
  writeFileSync(path(FILE), text.slice(0, Math.floor(text.length / 2)));
  const pack = readFileSync(path("readings/2025-01.pack"));
  flip(pack, pack.length - 5000); // a value of a later slot: the day's own slot is checked below
  pack.fill(0, 64 + 4 * 48 + 36, 64 + 4 * 48 + 48); // the checksum of 2025-01-05's slot
  writeFileSync(path("readings/2025-01.pack"), pack);
  await expectDamagedDay(t, dir, whole);
  const kept = readdirSync(path("readings")).filter((name) => name.startsWith(`${DAY}.jsonl.damaged-`));
  assert.equal(kept.length, 1, "the unreadable file is kept beside for the operator");
});

test("a flipped byte in a day file is a 503", async (t) => {
  const { dir, whole, path } = await store(t);
  rmSync(path("readings/2025-01.pack"));
  const bytes = readFileSync(path(FILE));
  const at = bytes.indexOf("residual_demand") + 20;
  bytes[at] = bytes[at] === 0x31 ? 0x32 : 0x31; // one digit of a value: still valid JSON
  writeFileSync(path(FILE), bytes);
  await expectDamagedDay(t, dir, whole);
});

test("a deleted day file is a 503", async (t) => {
  const { dir, whole, path } = await store(t);
  rmSync(path("readings/2025-01.pack"));
  rmSync(path(FILE));
  await expectDamagedDay(t, dir, whole);
});

test("a damaged pack is never read as data: the day file serves, verify-store names the pack", async (t) => {
  const { dir, whole, path } = await store(t);
  const pack = readFileSync(path("readings/2025-01.pack"));
  const valuesStart = 64 + 31 * 48;
  flip(pack, valuesStart + 4 * 24 * COLUMN_COUNT * 8 + 3); // inside 2025-01-05's values
  writeFileSync(path("readings/2025-01.pack"), pack);
  const server = await startServer(t, dir);
  const res = await server.get(RANGE);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), whole, "the same bytes as from a whole store");
  const problems = verifyStore(dir);
  assert.equal(problems.length, 1);
  assert.equal(problems[0]!.file, join("readings", "2025-01.pack"));
  assert.match(problems[0]!.problem, /slot for 2025-01-0\d is damaged/);
});

test("a damaged manifest.json is rebuilt from the day files and reported by verify-store", async (t) => {
  const { dir, whole, path } = await store(t);
  writeFileSync(path("manifest.json"), '{"format": 1, "days": {"2025-01-0');
  const server = await startServer(t, dir);
  const res = await server.get(RANGE);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), whole);
  const cli = await verifyCli(dir);
  assert.equal(cli.status, 1);
  assert.match(cli.stdout, /^manifest\.json cannot be read/m);
  ingestTexts(dir, { "sample.csv": SOURCE });
  assert.equal((await verifyCli(dir)).status, 0, "any ingest rewrites it");
});

test("verify-store names a day file the manifest does not list (an interrupted ingest)", async (t) => {
  const { dir, path } = await store(t);
  writeFileSync(path("readings/2030-01-01.jsonl"), '{"ts":"2030-01-01T00:00:00Z","wind":1}\n');
  const problems = verifyStore(dir);
  assert.deepEqual(
    problems.map((p) => p.file),
    [join("readings", "2030-01-01.jsonl")],
  );
  assert.match(problems[0]!.problem, /is not in the manifest \(an interrupted ingest\?\); re-run it/);
});
