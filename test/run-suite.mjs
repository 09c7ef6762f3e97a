/**
 * Runs the suite: the test files named on the command line, in that order, CONCURRENCY at a time,
 * reported by node:test's spec reporter and then `slowest-files.mjs`. `make test-suite` runs it
 * under `--import tsx`, which the files' processes inherit.
 *
 *     node --import tsx test/run-suite.mjs CONCURRENCY TIMEOUT_MS FILE... [-- FILE...]
 *
 * Each file before `--` runs in its own process, as `node --test` runs every file. The files after
 * `--` run one after another in one more process, started first (`together.mjs`): a process of its
 * own loads tsx, node:test and the modules a file imports again, 0.3 to 1.2 s of CPU on Node 20
 * (the Makefile's 89 such files took 59 s of CPU together against 111 s apart). Their tests still
 * report under their own file.
 *
 * Before the files, it starts what every file of the run shares (`run-helpers.mjs`): one
 * redis-server (`GDS_TEST_REDIS`; each test gets a database of its own on it), one Chromium
 * (`GDS_TEST_BROWSER`, which the browser files connect to), and a folder for the stores the tests
 * build once per run and read (`GDS_TEST_FIXTURES`, `fixture-stores.ts`); all go when the run ends.
 *
 * Why not `node --test FILE...`: it sorts the files by name (Node 20 and 24), so the slowest ones,
 * which the Makefile names first, started wherever the alphabet put them: the two slowest after
 * two thirds of the run, which they then outlasted. node:test's run() keeps the order.
 * Plain JavaScript, like the reporter: it runs before the tsx hooks apply to anything.
 */
import { join, resolve } from "node:path";
import { Duplex } from "node:stream";
import { run } from "node:test";
import { spec } from "node:test/reporters";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import slowestFiles from "./slowest-files.mjs";
import { launchBrowserServer, REDIS_SERVER, spawnRedis } from "./run-helpers.mjs";

const [concurrency, timeout, ...named] = process.argv.slice(2);
const split = named.indexOf("--");
const own = split === -1 ? named : named.slice(0, split);
const together = split === -1 ? [] : named.slice(split + 1);
if (!(Number(concurrency) >= 1 && Number(timeout) >= 1 && own.length + together.length > 0)) {
  process.stderr.write(
    "Usage: node --import tsx test/run-suite.mjs CONCURRENCY TIMEOUT_MS FILE... [-- FILE...]\n",
  );
  process.exit(2);
}

// The files' processes inherit this process's environment: together.mjs finds its list there, and
// every file the run's redis-server, browser and fixture folder.
const redis = REDIS_SERVER === undefined ? undefined : await spawnRedis();
if (redis !== undefined) process.env.GDS_TEST_REDIS = redis.url;
const browser = await launchBrowserServer();
if (browser !== undefined) process.env.GDS_TEST_BROWSER = browser.wsEndpoint();
const fixtures = mkdtempSync(join(tmpdir(), "gds-fixtures-"));
process.env.GDS_TEST_FIXTURES = fixtures;
if (together.length > 0) {
  process.env.GDS_TEST_FILES_TOGETHER = JSON.stringify(together.map((file) => resolve(file)));
}
const files = together.length > 0 ? [resolve(import.meta.dirname, "together.mjs"), ...own] : own;
const stream = run({ files, concurrency: Number(concurrency), timeout: Number(timeout) });
// A failed test, or a file that fails as a whole (it did not load, or exited non-zero), fails the run.
stream.on("test:fail", (data) => {
  if (!data.todo) process.exitCode = 1;
});
stream.pipe(new spec()).pipe(process.stdout);
stream.pipe(Duplex.from(slowestFiles)).pipe(process.stdout);
// When every file has ended, so do the run's helpers.
stream.once("end", () => {
  void (async () => {
    await browser?.close();
    await redis?.stop();
    rmSync(fixtures, { recursive: true, force: true });
  })();
});
