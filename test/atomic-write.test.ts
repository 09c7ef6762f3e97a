/**
 * `src/files/atomic-write.ts`, `src/files/append-line.ts` and `src/files/json-document.ts`:
 * crash-safe writes and appends, also on a disk that fills part-way through, and clear parse errors.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { isTempFile, removeStaleTempFiles, writeFileAtomic, stageFiles } from "../src/files/atomic-write.ts";
import { parseDocument } from "../src/files/json-document.ts";
import { appendLine } from "../src/files/append-line.ts";
import { CAN_MOUNT, fillDisk, NEEDS_MOUNT, skipUnless, smallDisk, tempDir } from "./helpers.ts";

test("an atomic write replaces the file whole, with the mode asked for, and leaves no temp file", (t) => {
  const dir = tempDir(t);
  const path = join(dir, "a.json");
  writeFileSync(path, "old");
  writeFileAtomic(path, "new", { mode: 0o600 });
  assert.equal(readFileSync(path, "utf8"), "new");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  writeFileAtomic(path, Buffer.from("bytes"), { durable: false });
  assert.equal(readFileSync(path, "utf8"), "bytes");
  assert.deepEqual(readdirSync(dir), ["a.json"]);
});

test("a failed write leaves the old file and no temp file behind", (t) => {
  const dir = tempDir(t);
  const path = join(dir, "a.json");
  writeFileSync(path, "old");
  chmodSync(dir, 0o500); // no new files in the directory
  try {
    if (process.getuid?.() === 0) {
      // root ignores directory permissions: a missing directory fails the same way
      assert.throws(() => writeFileAtomic(join(dir, "missing", "a.json"), "new"));
    } else {
      assert.throws(() => writeFileAtomic(path, "new"), /EACCES/);
    }
  } finally {
    chmodSync(dir, 0o700);
  }
  assert.equal(readFileSync(path, "utf8"), "old");
  assert.deepEqual(readdirSync(dir), ["a.json"]);
});

test("a multi-file write stages everything first: one failure changes no file", (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "a"), "A");
  writeFileSync(join(dir, "b"), "B");
  assert.throws(() =>
    stageFiles([
      { path: join(dir, "a"), data: "A2" },
      { path: join(dir, "no-such-dir", "b"), data: "B2" },
    ]).commit(),
  );
  assert.equal(readFileSync(join(dir, "a"), "utf8"), "A");
  assert.deepEqual(readdirSync(dir).sort(), ["a", "b"]);
  stageFiles([
    { path: join(dir, "a"), data: "A2" },
    { path: join(dir, "b"), data: "B2" },
  ]).commit();
  assert.equal(readFileSync(join(dir, "a"), "utf8") + readFileSync(join(dir, "b"), "utf8"), "A2B2");
});

test("stale temp files are recognised and removed, all or one file's only", (t) => {
  const dir = tempDir(t);
  for (const name of ["keys.json.tmp-1-aa", "manifest.json.tmp-2-bb", "keys.json"])
    writeFileSync(join(dir, name), "x");
  assert.ok(isTempFile(join(dir, "keys.json.tmp-1-aa")));
  assert.ok(!isTempFile(join(dir, "keys.json")));
  assert.equal(removeStaleTempFiles(dir, "manifest.json"), 1);
  assert.deepEqual(readdirSync(dir).sort(), ["keys.json", "keys.json.tmp-1-aa"]);
  assert.equal(removeStaleTempFiles(dir), 1);
  assert.deepEqual(readdirSync(dir), ["keys.json"]);
});

test("a kept JSON document that is not JSON, or not of its schema, is refused naming the file and the place", () => {
  const schema = v.object({ keys: v.array(v.object({ hash: v.string() })) });
  assert.deepEqual(parseDocument('{"keys":[{"hash":"x"}]}', schema, "keys.json"), { keys: [{ hash: "x" }] });
  assert.throws(() => parseDocument("{", schema, "keys.json"), /Cannot parse "keys.json"/);
  assert.throws(
    () => parseDocument('{"keys":[{"hash":1}]}', schema, "keys.json"),
    /Cannot read "keys.json": keys.0.hash: /,
  );
  assert.throws(
    () => parseDocument("[]", schema, "keys.json"),
    /Cannot read "keys.json": the document: expected a JSON object/,
  );
  assert.throws(() => parseDocument("null", schema, "keys.json"), /the document: expected a JSON object/);
});

// A disk with room for 8 KiB takes the first 8 KiB of a longer write(2) and reports that count;
// only the next write fails. A write that stopped at the count would leave a cut file as written.
const ROOM = 8192;
const LONG = "x".repeat(64 * 1024);
const ON_DISK = { skip: skipUnless(CAN_MOUNT, NEEDS_MOUNT) };

test(
  "an atomic write the disk cuts part-way fails with ENOSPC and leaves the old file whole",
  ON_DISK,
  (t) => {
    const dir = smallDisk(t, "1m");
    const path = join(dir, "a.json");
    writeFileSync(path, "old");
    const free = fillDisk(dir, ROOM);
    assert.throws(() => writeFileAtomic(path, LONG), /ENOSPC/);
    assert.throws(() => stageFiles([{ path, data: LONG }]).commit(), /ENOSPC/);
    assert.equal(readFileSync(path, "utf8"), "old");
    assert.deepEqual(readdirSync(dir).sort(), ["a.json", "filler"], "no temp file stays");
    free();
    writeFileAtomic(path, LONG);
    assert.equal(readFileSync(path, "utf8"), LONG);
  },
);

test("an append after a torn end starts a line of its own, so the torn bytes never swallow it", (t) => {
  const path = join(tempDir(t), "log.jsonl");
  appendLine(path, '{"a":1}\n');
  appendLine(path, '{"b":2}\n');
  assert.equal(readFileSync(path, "utf8"), '{"a":1}\n{"b":2}\n', "whole lines are appended as they are");
  writeFileSync(path, '{"b":', { flag: "a" }); // a kill cut this append
  appendLine(path, '{"c":3}\n');
  assert.equal(readFileSync(path, "utf8"), '{"a":1}\n{"b":2}\n{"b":\n{"c":3}\n');
});

test(
  "an append the disk cuts part-way fails with ENOSPC, and the next one stands on its own line",
  ON_DISK,
  (t) => {
    const dir = smallDisk(t, "1m");
    const path = join(dir, "log.jsonl");
    appendLine(path, '{"a":1}\n');
    const free = fillDisk(dir, ROOM);
    assert.throws(() => appendLine(path, `{"long":"${LONG}"}\n`), /ENOSPC/);
    free();
    appendLine(path, '{"c":3}\n');
    const lines = readFileSync(path, "utf8").split("\n");
    assert.equal(lines[0], '{"a":1}');
    assert.ok(
      lines[1]!.startsWith('{"long":"xxx') && lines[1]!.length < LONG.length,
      "the cut line is apart",
    );
    assert.deepEqual(lines.slice(2), ['{"c":3}', ""]);
  },
);
