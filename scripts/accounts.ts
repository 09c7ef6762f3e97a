/** `npm run --silent accounts -- COMMAND`: manages dashboard accounts in DATA_DIR. See `accounts help`. */
import { resolve } from "node:path";
import { text } from "node:stream/consumers";
import { runAccountsCli } from "../src/accounts/accounts-cli.ts";

try {
  process.exitCode = await runAccountsCli(process.argv.slice(2), {
    dir: resolve(process.env.DATA_DIR || "data"),
    io: {
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      stdin: () => text(process.stdin),
    },
  });
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
