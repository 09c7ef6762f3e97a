/**
 * Runs the suite: the test files named on the command line, in that order, CONCURRENCY at a time,
 * each in its own process (as `node --test` does), reported by node:test's spec reporter and then
 * `slowest-files.mjs`. `make test-suite` runs it under `--import tsx`, which the files' processes
 * inherit.
 *
 *     node --import tsx test/run-suite.mjs CONCURRENCY TIMEOUT_MS FILE...
 *
 * Why not `node --test FILE...`: it sorts the files by name (Node 20 and 24), so the slowest ones,
 * which the Makefile names first, started wherever the alphabet put them: the two slowest after
 * two thirds of the run, which they then outlasted. node:test's run() keeps the order.
 * Plain JavaScript, like the reporter: it runs before the tsx hooks apply to anything.
 */
import { Duplex } from "node:stream";
import { run } from "node:test";
import { spec } from "node:test/reporters";
import slowestFiles from "./slowest-files.mjs";

const [concurrency, timeout, ...files] = process.argv.slice(2);
if (!(Number(concurrency) >= 1 && Number(timeout) >= 1 && files.length > 0)) {
  process.stderr.write("Usage: node --import tsx test/run-suite.mjs CONCURRENCY TIMEOUT_MS FILE...\n");
  process.exit(2);
}

const stream = run({ files, concurrency: Number(concurrency), timeout: Number(timeout) });
// A failed test, or a file that fails as a whole (it did not load, or exited non-zero), fails the run.
stream.on("test:fail", (data) => {
  if (!data.todo) process.exitCode = 1;
});
stream.pipe(new spec()).pipe(process.stdout);
stream.pipe(Duplex.from(slowestFiles)).pipe(process.stdout);
