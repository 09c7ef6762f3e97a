/**
 * `npm run --silent accounts -- COMMAND`: manages dashboard accounts in DATA_DIR, or, with
 * REDIS_URL set, in Redis, where every server process and VM reads them. See `accounts help`.
 */
import { resolve } from "node:path";
import { text } from "node:stream/consumers";
import { runAccountsCli } from "../src/accounts/accounts-cli.ts";
import { withSharedDocuments } from "../src/shared/shared-cli.ts";
import { redisDocumentStore, type SharedDocuments } from "../src/shared/shared-documents.ts";

const dir = resolve(process.env.DATA_DIR || "data");
// Chosen once: DATA_DIR's files, or with REDIS_URL Redis's copies.
const run = (shared?: SharedDocuments) =>
  runAccountsCli(process.argv.slice(2), {
    dir,
    documents: shared === undefined ? undefined : redisDocumentStore(shared, dir),
    io: {
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      stdin: () => text(process.stdin),
    },
  });
try {
  const url = process.env.REDIS_URL;
  process.exitCode = url === undefined || url === "" ? await run() : await withSharedDocuments(url, run);
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
