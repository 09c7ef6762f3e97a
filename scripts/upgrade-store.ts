/**
 * `npm run upgrade-store`: rewrites every file of DATA_DIR that is in an older format, under the
 * ingest lock, then checks the store. A running server does the same by itself after it starts;
 * this is for an operator who wants it done, and seen, now.
 */
import { resolve } from "node:path";
import { upgradeStore } from "../src/store/migrations.ts";
import { checkStore } from "../src/store/verify-store.ts";

const dir = resolve(process.env.DATA_DIR || "data");
const done = upgradeStore(dir);
for (const { file, migration } of done) process.stdout.write(`${file}: ${migration}\n`);
const check = checkStore(dir);
process.stderr.write(
  `Upgraded ${done.length} file${done.length === 1 ? "" : "s"} in ${dir}; the store is ${check.state}` +
    (check.state === "damaged" ? ": run npm run verify-store for the repairs" : "") +
    ".\n",
);
process.exitCode = check.state === "damaged" ? 1 : 0;
