/**
 * `npm run --silent pull [-- --json] [-- --verbose]` (or `make pull`): follows the Eskom Data
 * Portal's pages to its files and ingests what is new into DATA_DIR. A line per file goes to
 * stderr (each URL too with --verbose); `--json` prints the summary as one JSON line on stdout.
 * Exits 0 when every file was current or ingested, 1 otherwise, so a scheduler can alert.
 *
 * `npm run --silent pull -- --accept-header FILE` accepts the changed header of a refused file
 * and ingests that refused download from the archive.
 */
import { resolve } from "node:path";
import { AcceptError, acceptHeader } from "../src/pull/accept-header.ts";
import { loadPullConfig } from "../src/pull/pull-config.ts";
import { describe, pullPortal } from "../src/pull/pull.ts";
import { portalFile, PORTAL_FILES } from "../src/pull/portal-files.ts";

const USAGE =
  "Usage: npm run --silent pull [-- --json] [-- --verbose]\n" +
  "       npm run --silent pull -- --accept-header FILE\n" +
  "Settings: PORTAL_URL, PORTAL_FILES, PULL_TIMEOUT_S, PULL_ATTEMPTS, PULL_BACKOFF_S, STALE_AFTER_H, DATA_DIR.\n";

const args = process.argv.slice(2);
const dir = resolve(process.env.DATA_DIR || "data");

function accept(file: string | undefined): void {
  const spec = file === undefined ? undefined : portalFile(file);
  if (spec === undefined) {
    process.stderr.write(`--accept-header takes one of: ${PORTAL_FILES.map((s) => s.name).join(", ")}\n`);
    process.exitCode = 2;
    return;
  }
  const { header, ignored, outcome } = acceptHeader(dir, spec, { now: Date.now });
  process.stderr.write(`Accepted the header of ${spec.name}: ${header.join(", ")}\n`);
  if (ignored.length > 0) {
    process.stderr.write(`  not stored (this release does not know them): ${ignored.join(", ")}\n`);
  }
  if (outcome !== undefined) process.stderr.write(`  the refused download: ${describe(outcome)}\n`);
  process.exitCode = outcome === undefined || outcome.result === "ingested" ? 0 : 1;
}

async function pull(json: boolean, verbose: boolean): Promise<void> {
  const config = loadPullConfig(process.env);
  if (config.note !== undefined) process.stderr.write(`Note: ${config.note}\n`);
  const started = Date.now();
  const result = await pullPortal({
    dir,
    root: config.root,
    files: config.files,
    policy: {
      ...config.policy,
      onRetry: verbose
        ? (reason, waitMs) =>
            process.stderr.write(`  retrying in ${(waitMs / 1000).toFixed(1)} s: ${reason}\n`)
        : undefined,
    },
    staleAfterMs: config.staleAfterMs,
    powerbi: config.powerbi,
    onProgress: (line) => (verbose || !line.includes(": GET ")) && process.stderr.write(line + "\n"),
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.unreachable !== undefined)
    process.stderr.write(`Pull FAILED in ${seconds} s: ${result.unreachable}\n`);
  else process.stderr.write(`${result.ok ? "Pull done" : "Pull FAILED"} in ${seconds} s\n`);
  if (json) process.stdout.write(JSON.stringify({ ...result, seconds: Number(seconds) }) + "\n");
  process.exitCode = result.ok ? 0 : 1;
}

try {
  if (args[0] === "--accept-header" && args.length === 2) accept(args[1]);
  else if (args.every((a) => a === "--json" || a === "--verbose")) {
    await pull(args.includes("--json"), args.includes("--verbose"));
  } else {
    process.stderr.write(USAGE);
    process.exitCode = 2;
  }
} catch (error) {
  // A bad setting, a damaged state file, a full disk: one line, and the stack only when asked for.
  const known = error instanceof TypeError || error instanceof AcceptError || error instanceof SyntaxError;
  process.stderr.write(`Pull FAILED: ${(error as Error).message}\n`);
  if (!known && args.includes("--verbose")) process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
}
