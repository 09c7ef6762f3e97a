/** `npm run --silent keys -- COMMAND`: manages API keys in DATA_DIR. See `keys help`. */
import { resolve } from "node:path";
import { runKeysCli } from "../src/keys/keys-cli.ts";

try {
  process.exitCode = runKeysCli(process.argv.slice(2), {
    dir: resolve(process.env.DATA_DIR || "data"),
    env: process.env,
    io: { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) },
  });
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
