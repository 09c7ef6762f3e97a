/**
 * `npm run --silent replay-archive -- [ARCHIVE_DIR]`: rebuilds the store at DATA_DIR from the
 * pull's archive of downloads (default: DATA_DIR's own `archive/`), with this release's parser,
 * without asking the portal for anything. DATA_DIR must hold no real data yet. Exits 0 when every
 * download was taken as this release reads it (refusals included, each named on stderr), 1 when
 * the replay could not run.
 */
import { resolve } from "node:path";
import { describe } from "../src/pull/pull.ts";
import { replayArchive, ReplayError } from "../src/pull/replay.ts";

const args = process.argv.slice(2);
if (args.length > 1 || args.some((a) => a.startsWith("-"))) {
  process.stderr.write("Usage: npm run --silent replay-archive -- [ARCHIVE_DIR]\nRebuilds DATA_DIR.\n");
  process.exit(2);
}
const dir = resolve(process.env.DATA_DIR || "data");
try {
  const started = performance.now();
  const replay = replayArchive(dir, args[0] === undefined ? undefined : resolve(args[0]));
  for (const { at, outcome } of replay.outcomes) {
    if (outcome.result === "refused" || outcome.error !== undefined)
      process.stderr.write(`${at} ${describe(outcome)}\n`);
  }
  const count = (result: string) => replay.outcomes.filter((o) => o.outcome.result === result).length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `Replayed ${replay.outcomes.length} downloads into ${dir} in ${seconds} s: ${count("ingested")} ingested, ` +
      `${count("unchanged")} unchanged, ${count("refused")} refused` +
      (replay.passed > 0
        ? `; ${replay.passed} log lines passed over (torn, or files this release does not know)`
        : "") +
      "\n",
  );
} catch (error) {
  if (!(error instanceof ReplayError)) throw error;
  process.stderr.write(`Error: ${error.message}\n`);
  process.exitCode = 1;
}
