/**
 * `npm run --silent keys -- COMMAND`: manages API keys in DATA_DIR, or, with REDIS_URL set, in
 * Redis, where every server process and VM reads them. See `keys help`.
 */
import { resolve } from "node:path";
import { runKeysCli } from "../src/keys/keys-cli.ts";
import { type CliIo, runOnSharedKeys, withSharedDocuments } from "../src/shared/shared-cli.ts";

const argv = process.argv.slice(2);
const dir = resolve(process.env.DATA_DIR || "data");
const io: CliIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
};
const run = (at: string, out: CliIo) => runKeysCli(argv, { dir: at, env: process.env, io: out });
try {
  const url = process.env.REDIS_URL;
  process.exitCode =
    url === undefined || url === ""
      ? run(dir, io)
      : await withSharedDocuments(url, (documents) => runOnSharedKeys(documents, dir, io, run));
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
