/** `npm run generate-sample -- OUT.csv [FIRST_DAY] [DAYS]`: writes sample export rows to a file. */
import { writeFileSync } from "node:fs";
import { generateSampleExport } from "../src/sample/sample-export.ts";

const [out, firstDay = "2025-01-01", days = "365"] = process.argv.slice(2);
if (out === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(firstDay) || !/^\d+$/.test(days)) {
  process.stderr.write("Usage: npm run generate-sample -- OUT.csv [FIRST_DAY=2025-01-01] [DAYS=365]\n");
  process.exit(2);
}
writeFileSync(out, generateSampleExport({ firstDay, days: Number(days) }));
process.stderr.write(`Wrote ${days} days of sample export rows from ${firstDay} to ${out}\n`);
