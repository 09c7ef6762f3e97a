/**
 * The server's logs when their output fails (`src/files/log-output.ts`): a log redirected to a full
 * disk, or piped to a reader that went away, loses lines, which are counted and warned of, and
 * never ends the service; logging resumes once the output takes writes again.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileOutput, type OutputLoss } from "../src/files/log-output.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import {
  CAN_MOUNT,
  fillDisk,
  ingestTexts,
  metricsPortOf,
  NEEDS_MOUNT,
  skipUnless,
  smallDisk,
  startServerProcess,
  tempDir,
  waitFor,
} from "./helpers.ts";

const ON_DISK = { skip: skipUnless(CAN_MOUNT, NEEDS_MOUNT) };
const DATA = "/api/v1/grid/system-state?start=2025-06-02&end=2025-06-03";

test("an output that cannot be written loses the write, counts its lines, tells, and never throws", (t) => {
  const path = join(tempDir(t), "log");
  closeSync(openSync(path, "w"));
  const fd = openSync(path, "r"); // writes fail with EBADF
  t.after(() => closeSync(fd));
  const heard: OutputLoss[] = [];
  const out = fileOutput(fd, (loss) => heard.push(loss));
  assert.equal(out.lost, undefined);
  assert.equal(out.write("one\ntwo\n"), false);
  assert.equal(out.write(Buffer.from("three\nfour")), false, "a last line without its newline counts");
  assert.deepEqual(
    heard.map(({ writes, bytes, lines }) => ({ writes, bytes, lines })),
    [
      { writes: 1, bytes: 8, lines: 2 },
      { writes: 2, bytes: 18, lines: 4 },
    ],
  );
  assert.equal(out.lost!.error.code, "EBADF");
});

test(
  "an output on a full disk loses lines while it is full, then writes again on a line of its own",
  ON_DISK,
  (t) => {
    const dir = smallDisk(t, "1m");
    const path = join(dir, "access.log");
    const fd = openSync(path, "a");
    t.after(() => closeSync(fd));
    const out = fileOutput(fd);
    assert.equal(out.write("before\n"), true);
    const free = fillDisk(dir);
    // The file's last page still has room for part of it: the write is cut mid-line, then refused.
    const line = "x".repeat(8191) + "\n";
    assert.equal(out.write(line.repeat(4)), false);
    assert.equal(out.lost!.error.code, "ENOSPC");
    assert.equal(out.lost!.lines, 4);
    assert.equal(out.write("while full\n"), false);
    assert.equal(out.lost!.lines, 5);
    free();
    assert.equal(out.write("after\n"), true);
    const lines = readFileSync(path, "utf8").split("\n");
    assert.equal(lines.length, 4, "before, the cut line, after, and the end");
    assert.equal(lines[0], "before");
    assert.match(lines[1]!, /^x+$/);
    assert.ok(lines[1]!.length < 8191, "the cut line stands apart");
    assert.deepEqual(lines.slice(2), ["after", ""]);
  },
);

// A store with data and a key, for a server process.
function storeWithKey(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-06-01", days: 3 }) });
  const unlimited = { normalized_data: 1_000_000, features: 1_000_000, metadata: 1_000_000 };
  return { dir, key: createKey(dir, { name: "k", account: "desk", limits: unlimited }).key };
}

const parses = (line: string): boolean => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

test(
  "a server whose access log goes to a full disk serves on, warns once, counts the lines, and logs again once there is room",
  ON_DISK,
  async (t) => {
    const logDisk = smallDisk(t, "1m");
    const { dir, key } = storeWithKey(t);
    const logPath = join(logDisk, "access.log");
    const logFd = openSync(logPath, "a");
    t.after(() => closeSync(logFd));
    const server = await startServerProcess(t, dir, {
      stdout: logFd,
      env: { METRICS_PORT: "0" },
      ready: (printed) => printed.includes("Metrics at"),
    });
    const metricsPort = metricsPortOf(server.stderr());
    const get = async () => {
      const res = await fetch(`http://127.0.0.1:${server.port}${DATA}`, { headers: { "X-API-KEY": key } });
      await res.arrayBuffer();
      return res.status;
    };
    const lostLines = async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return Number(/^gds_log_lines_lost_total\{output="stdout"\} (\d+)$/m.exec(text)?.[1]);
    };
    const lines = () => readFileSync(logPath, "utf8").split("\n").length - 1;

    assert.equal(await get(), 200);
    await waitFor(() => lines() === 1, "the first line to be written");
    const free = fillDisk(logDisk);
    // The log file's last page takes some lines yet; then lines are lost, many of them.
    let lost = 0;
    for (let round = 0; round < 40 && lost < 50; round++) {
      for (let i = 0; i < 10; i++) assert.equal(await get(), 200);
      lost = await lostLines();
    }
    assert.ok(lost >= 50, `${lost} lines lost`);
    assert.equal(server.child.exitCode, null, "the server runs on");
    const warnings = server.stderr().match(/WARNING: the access log cannot be written to standard output/g);
    assert.equal(warnings?.length, 1, "one warning a minute");
    assert.match(
      server.stderr(),
      /\(ENOSPC: no space left on device, write\); \d+ lines lost so far; requests are still served/,
    );

    free();
    const before = lines();
    assert.equal(await get(), 200);
    await waitFor(() => lines() > before, "a line once there is room");
    const written = readFileSync(logPath, "utf8").trimEnd().split("\n");
    const last = JSON.parse(written.at(-1)!) as { status: number; path: string };
    assert.deepEqual([last.status, last.path], [200, "/api/v1/grid/system-state"], "the log resumes");
    assert.ok(written.filter((line) => !parses(line)).length <= 1, "at most the one line the disk cut");
  },
);

test("a server whose access log's reader went away (EPIPE) serves on, and says so", async (t) => {
  const { dir, key } = storeWithKey(t);
  const server = await startServerProcess(t, dir);
  server.child.stdout!.destroy(); // the reader of the pipe is gone
  const warning =
    /WARNING: the access log cannot be written to standard output \((write )?EPIPE\); \d+ lines lost so far; requests are still served/;
  // The first lines may still go into the pipe's buffer before the write fails.
  await waitFor(async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}${DATA}`, { headers: { "X-API-KEY": key } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    return warning.test(server.stderr());
  }, "the EPIPE warning");
  assert.equal(server.child.exitCode, null, "the server runs on");
});

test("a stop leaves every access-log line written, after the last response", async (t) => {
  const { dir, key } = storeWithKey(t);
  const server = await startServerProcess(t, dir);
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`http://127.0.0.1:${server.port}${DATA}`, { headers: { "X-API-KEY": key } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  // "close" comes once the pipe's last bytes have reached this process.
  const closed = new Promise<number | null>((resolve) => server.child.on("close", resolve));
  server.child.kill("SIGTERM");
  assert.equal(await closed, 0);
  const lines = server.stdout().trimEnd().split("\n");
  assert.equal(lines.length, 5, server.stdout());
  for (const line of lines) assert.equal((JSON.parse(line) as { status: number }).status, 200);
});
