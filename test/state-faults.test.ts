/**
 * A full or read-only disk under the state the server keeps beside the data (last-use times,
 * request counts, sessions): nothing is left behind, what could not be written is written later,
 * and a stop that could not write says so and exits non-zero. A small filesystem needs a tmpfs,
 * which root can mount. And what killed writers left: a server removes their temp files as it starts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createKey } from "../src/keys/key-admin.ts";
import { createKeyRegistry } from "../src/keys/key-registry.ts";
import { createRequestCounter } from "../src/usage/request-counts.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import {
  CAN_MOUNT,
  fillDisk,
  ingestTexts,
  NEEDS_MOUNT,
  skipUnless,
  smallDisk,
  startServerProcess,
  tempDir,
} from "./helpers.ts";

const SKIP = skipUnless(CAN_MOUNT, NEEDS_MOUNT);

const leftovers = (dir: string) => readdirSync(dir).filter((n) => /\.lock\.|\.tmp-/.test(n));

test(
  "last-use times that fail to flush on a full disk leave no lock claim, and are written once there is room",
  { skip: SKIP },
  async (t) => {
    const dir = smallDisk(t, "1m");
    const { key, record } = createKey(dir, { name: "k", account: "a" });
    const errors: unknown[] = [];
    const registry = createKeyRegistry({ dir, onError: (e) => errors.push(e) });
    const free = fillDisk(dir);
    const seen = registry.authenticate(key);
    assert.equal(seen.ok, true);
    await assert.rejects(registry.flushUsage(), /ENOSPC|no space/i);
    assert.ok(errors.length > 0, "reported");
    assert.deepEqual(leftovers(dir), [], "no lock claim or temp file stays");
    free();
    await registry.flushUsage();
    const usage = JSON.parse(readFileSync(join(dir, "key-usage.json"), "utf8")) as Record<string, string>;
    assert.ok(usage[record.id] !== undefined, "the time the failed flush held is written");
  },
);

test(
  "request counts that fail to flush are kept and written by the next flush",
  { skip: SKIP },
  async (t) => {
    const dir = smallDisk(t, "1m");
    const counter = createRequestCounter({ dir, onError: () => {} });
    t.after(() => counter.close());
    counter.count("key_1", "normalized_data", true);
    counter.count("key_1", "normalized_data", true);
    const free = fillDisk(dir);
    await assert.rejects(counter.flush(), /ENOSPC|no space/i);
    assert.deepEqual(leftovers(dir), []);
    free();
    await counter.flush();
    assert.match(readFileSync(join(dir, "request-counts.json"), "utf8"), /"key_1"/);
  },
);

test(
  "a stop on a store that turned read-only says what it could not write and exits 1",
  { skip: SKIP },
  async (t) => {
    const dir = smallDisk(t, "20m");
    const { key } = createKey(dir, { name: "k", account: "a", limits: { normalized_data: 1000 } });
    const server = await startServerProcess(t, dir);
    // A counted request: its count waits for the minute's flush, or the stop's.
    const res = await fetch(
      `http://127.0.0.1:${server.port}/api/v1/grid/system-state?start=2025-01-01&end=2025-01-02`,
      {
        headers: { "X-API-KEY": key },
      },
    );
    assert.equal(res.status, 200);
    assert.equal(spawnSync("mount", ["-o", "remount,ro", dir]).status, 0);
    const exited = new Promise<number | null>((resolve) => server.child.on("exit", resolve));
    server.child.kill("SIGTERM");
    assert.equal(await exited, 1);
    assert.match(
      server.stderr(),
      /stopped: every request finished, but the state could not all be written: request counts: .*(EROFS|read-only)/,
    );
    assert.doesNotMatch(server.stderr(), /the state is written/);
  },
);

test("a server removes, as it starts, the temp files of writers that were killed, and no live writer's", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "a.csv": generateSampleExport({ firstDay: "2025-01-01", days: 2 }) });
  const dead = 999_999; // not running (a pid this high is not in use on these machines)
  const planted = {
    [`keys.json.tmp-${dead}-abcdef12`]: "dead: a killed keys CLI",
    [`pull-state.json.tmp-${dead}-0123abcd`]: "dead: a killed pull",
    [`readings/2025-01-01.jsonl.tmp-${dead}-deadbeef`]: "dead: a killed ingest",
    [`archive/bodies/0f.gz.tmp-${dead}-00ff00ff`]: "dead: a killed pull",
    [`request-counts.json.tmp-${process.pid}-abcdef12`]: "alive: this test's process",
    [`notes.tmp-${dead}`]: "not a temp file of ours",
  };
  mkdirSync(join(dir, "archive", "bodies"), { recursive: true });
  for (const [name, text] of Object.entries(planted)) writeFileSync(join(dir, name), text);
  const server = await startServerProcess(t, dir);
  const left = (sub: string) =>
    readdirSync(join(dir, sub))
      .filter((n) => n.includes(".tmp-"))
      .sort();
  assert.deepEqual(left(""), [`notes.tmp-${dead}`, `request-counts.json.tmp-${process.pid}-abcdef12`]);
  assert.deepEqual(left("readings"), []);
  assert.deepEqual(left("archive/bodies"), []);
  const said = server
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("Removed "));
  assert.equal(said.length, 3, said.join("\n"));
  assert.match(
    said.find((line) => line.includes("keys.json")) ?? "",
    /^Removed 2 temp file\(s\) that killed writers left in /,
  );
  assert.match(said.join("\n"), new RegExp(`pull-state\\.json\\.tmp-${dead}-0123abcd`));
});

test(
  "a server starts on a store it cannot write to: it serves, and says which leftovers it could not remove",
  { skip: SKIP },
  async (t) => {
    const dir = smallDisk(t, "20m");
    ingestTexts(dir, { "a.csv": generateSampleExport({ firstDay: "2025-01-01", days: 2 }) });
    const { key } = createKey(dir, { name: "k", account: "a" });
    const first = await startServerProcess(t, dir); // makes the dashboard's secret
    const stopped = new Promise((resolve) => first.child.on("exit", resolve));
    first.child.kill("SIGTERM");
    await stopped;
    writeFileSync(join(dir, "keys.json.tmp-999999-abcdef12"), "a killed keys CLI's");
    assert.equal(spawnSync("mount", ["-o", "remount,ro", dir]).status, 0);
    const server = await startServerProcess(t, dir);
    assert.match(
      server.stderr(),
      // Node 24's rmSync words it "Unknown error: Read-only file system '<path>'".
      /Could not remove the temp files killed writers left in \S+: .*(EROFS|[Rr]ead-only file system).*keys\.json\.tmp-999999-abcdef12/,
    );
    const res = await fetch(
      `http://127.0.0.1:${server.port}/api/v1/grid/system-state?start=2025-01-01&end=2025-01-02`,
      { headers: { "X-API-KEY": key } },
    );
    assert.equal(res.status, 200);
  },
);
