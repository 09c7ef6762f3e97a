/**
 * `npm run verify-store [-- --json]` (or `make verify-store`): checks every file of DATA_DIR.
 * Exits 0 for a whole store, also when some files are in an older format (it says which, and that
 * `npm run upgrade-store` or the next start rewrites them), and 1 naming each damaged file and its
 * repair. `--json` prints the same as one JSON object on stdout.
 */
import { resolve } from "node:path";
import { checkStore } from "../src/store/verify-store.ts";

const dir = resolve(process.env.DATA_DIR || "data");
const check = checkStore(dir);
process.exitCode = check.state === "damaged" ? 1 : 0;
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
if (process.argv.includes("--json")) {
  const { state, problems, outdated, realDays, sampleDays } = check;
  const body = { state, real_days: realDays, sample_days: sampleDays, problems, outdated };
  process.stdout.write(JSON.stringify(body) + "\n");
} else {
  process.stderr.write(
    check.sampleDays > 0
      ? `The store holds ${plural(check.sampleDays, "day")} of sample data (generated, not Eskom's).\n`
      : `The store holds ${plural(check.realDays, "day")} of real data.\n`,
  );
  for (const { file, problem } of check.problems) process.stdout.write(`${file} ${problem}\n`);
  for (const { file, migration } of check.outdated) {
    process.stdout.write(`${file} is in an older format; the upgrade will ${migration}\n`);
  }
  const later =
    check.outdated.length === 0
      ? ""
      : ` ${plural(check.outdated.length, "file")} in an older format will be rewritten by the next start of the service, or now by npm run upgrade-store.`;
  process.stderr.write(
    check.state === "damaged"
      ? `${plural(check.problems.length, "problem")} in the store in ${dir}.${later}\n`
      : `The store in ${dir} is whole.${later}\n`,
  );
}
