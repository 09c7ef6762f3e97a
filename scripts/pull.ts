/**
 * `npm run --silent pull [-- --json]` (or `make pull`): downloads the Eskom Data Portal's live
 * files and ingests what is new into DATA_DIR. Progress and the summary go to stderr; `--json`
 * prints the summary as one JSON line on stdout. Exits 0 when every file was current or
 * ingested, 1 otherwise, so a scheduler can alert.
 */
import { resolve } from "node:path";
import { loadPullConfig } from "../src/pull/pull-config.ts";
import { describe, pullPortal } from "../src/pull/pull.ts";

const args = process.argv.slice(2);
if (args.some((a) => a !== "--json")) {
  process.stderr.write(
    "Usage: npm run --silent pull [-- --json]\nSettings: PORTAL_URL, PORTAL_FILES, PULL_TIMEOUT_S, DATA_DIR.\n",
  );
  process.exit(2);
}
try {
  const config = loadPullConfig(process.env);
  const dir = resolve(process.env.DATA_DIR || "data");
  const started = Date.now();
  const { ok, files } = await pullPortal({
    dir,
    baseUrl: config.baseUrl,
    files: config.files,
    policy: {
      ...config.policy,
      onRetry: (reason, waitMs) =>
        process.stderr.write(`  retrying in ${(waitMs / 1000).toFixed(1)} s: ${reason}\n`),
    },
    onProgress: (line) => process.stderr.write(line + "\n"),
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `${ok ? "Pull done" : "Pull FAILED"} in ${seconds} s: ${files.map(describe).join("; ")}\n`,
  );
  if (args.includes("--json"))
    process.stdout.write(JSON.stringify({ ok, seconds: Number(seconds), files }) + "\n");
  process.exitCode = ok ? 0 : 1;
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
