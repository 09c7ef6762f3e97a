/**
 * `npm run --silent keys -- COMMAND`: manages API keys in DATA_DIR, or, with REDIS_URL set, in
 * Redis, where every server process and VM reads them. See `keys help`.
 */
import { resolve } from "node:path";
import { runKeysCli } from "../src/keys/keys-cli.ts";
import { ACCOUNTS_FILE, parseAccountFile, readAccounts } from "../src/accounts/account-file.ts";
import { type CliIo, runOnSharedKeys, withSharedDocuments } from "../src/shared/shared-cli.ts";

const argv = process.argv.slice(2);
const dir = resolve(process.env.DATA_DIR || "data");
const io: CliIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
};
const localAccounts = () => readAccounts(dir).map((a) => a.name);
const run = (at: string, out: CliIo, accounts = localAccounts) =>
  runKeysCli(argv, { dir: at, env: process.env, io: out, accounts });
try {
  const url = process.env.REDIS_URL;
  process.exitCode =
    url === undefined || url === ""
      ? run(dir, io)
      : await withSharedDocuments(url, async (documents) => {
          // The accounts every VM shares are Redis's (before their first change there, this VM's).
          const { text } = await documents.read(ACCOUNTS_FILE);
          const names = text === null ? localAccounts() : parseAccountFile(text).map((a) => a.name);
          return runOnSharedKeys(documents, dir, io, (at, out) => run(at, out, () => names));
        });
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
