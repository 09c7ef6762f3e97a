/** `npm run verify-store` (or `make verify-store`): checks every file of DATA_DIR; exits 1 naming each damaged one. */
import { resolve } from "node:path";
import { storeMakeUp, verifyStore } from "../src/store/verify-store.ts";

const dir = resolve(process.env.DATA_DIR || "data");
const problems = verifyStore(dir);
const { realDays, sampleDays } = storeMakeUp(dir);
const plural = (n: number) => `${n} day${n === 1 ? "" : "s"}`;
process.stderr.write(
  sampleDays > 0
    ? `The store holds ${plural(sampleDays)} of sample data (generated, not Eskom's).\n`
    : `The store holds ${plural(realDays)} of real data.\n`,
);
for (const { file, problem } of problems) process.stdout.write(`${file} ${problem}\n`);
process.stderr.write(
  problems.length === 0
    ? `The store in ${dir} is whole.\n`
    : `${problems.length} problem${problems.length === 1 ? "" : "s"} in the store in ${dir}.\n`,
);
process.exitCode = problems.length === 0 ? 0 : 1;
