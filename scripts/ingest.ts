/** `npm run ingest -- FILE...`: ingests Eskom Data Portal CSV files into the store at DATA_DIR. */
import { resolve } from "node:path";
import { ingestFiles, type IngestProgress } from "../src/ingest/ingest.ts";
import { skippedText } from "../src/ingest/ingest-summary.ts";
import { gridEvents } from "../src/pull/grid-events.ts";
import { outlookEvents } from "../src/pull/outlook-events.ts";
import { ingestEvents } from "../src/pull/pull-events.ts";
import { enqueue } from "../src/webhooks/outbox.ts";

const files = process.argv.slice(2);
if (files.length === 0 || files.includes("--help") || files.includes("-h")) {
  process.stderr.write(
    "Usage: npm run ingest -- FILE.csv [FILE.csv ...]\n" + "Stores into DATA_DIR (default ./data).\n",
  );
  process.exit(files.length === 0 ? 2 : 0);
}
const dir = resolve(process.env.DATA_DIR || "data");

const progress: IngestProgress | undefined = process.stderr.isTTY
  ? (stage, done, total) => {
      const label = stage === "parse" ? "parsing files" : "writing days";
      process.stderr.write(`\r${label}: ${done}/${total}${done === total ? "\n" : ""}`);
    }
  : undefined;

const started = performance.now();
let summary: ReturnType<typeof ingestFiles>;
try {
  summary = ingestFiles(files, { dir, onProgress: progress });
} catch (error) {
  // A full disk or a permission problem while writing: the new days, the month packs and the
  // manifest are all written before any day is replaced, so the store is as it was.
  process.stderr.write(
    `error: Cannot write to the store in ${dir}: ${(error as Error).message}. The stored data is unchanged.\n`,
  );
  process.exit(1);
}
const ms = Math.round(performance.now() - started);

for (const failure of summary.failures) process.stderr.write(`error: ${failure.message}\n`);
if (summary.sampleDaysRemoved > 0) {
  process.stdout.write(
    `Removed ${summary.sampleDaysRemoved} days of sample data (generated, not Eskom's) before storing real data\n`,
  );
}
for (const repair of summary.repaired) process.stderr.write(`repaired: ${repair.message}\n`);
const skipped = skippedText(summary.skipped, summary.skippedFirst);
process.stdout.write(
  [
    `Ingested ${summary.files - summary.failures.filter((f) => f.kind === "source").length} of ${summary.files} files into ${dir} in ${ms} ms`,
    `  rows read:      ${summary.rowsRead}`,
    `  hours written:  ${summary.hoursChanged} (${summary.hoursAdded} new, ${summary.hoursRevised} revised; old values kept in revisions/)`,
    `  days touched:   ${summary.daysTouched} (${summary.daysWritten} rewritten)`,
    `  rows skipped:   ${skipped}`,
    ...(summary.sample ? ["  The store holds generated sample data, not Eskom's."] : []),
  ].join("\n") + "\n",
);
// The webhook events of what changed (docs/webhooks.md); a failure to queue them is said, and fails.
let eventsFailed = false;
try {
  for (const event of ingestEvents(summary)) enqueue(dir, event);
  if (summary.hoursChanged > 0) {
    gridEvents(dir);
    outlookEvents(dir);
  }
} catch (error) {
  process.stderr.write(`error: the webhook events could not be queued: ${(error as Error).message}\n`);
  eventsFailed = true;
}
process.exitCode = summary.failures.length > 0 || eventsFailed ? 1 : 0;
