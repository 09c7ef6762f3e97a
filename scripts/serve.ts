/**
 * `make serve`: seeds an empty store with a year of generated sample data (through the real
 * ingest path), then starts the service.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { loadManifest } from "../src/store/manifest.ts";

const SAMPLE_FIRST_DAY = "2025-01-01";
const SAMPLE_DAYS = 365;

const config = loadConfig();
mkdirSync(config.dataDir, { recursive: true });
if (loadManifest(config.dataDir).size === 0) {
  const dir = join(config.dataDir, "sample");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `sample-export-${SAMPLE_FIRST_DAY}-${SAMPLE_DAYS}d.csv`);
  process.stderr.write(
    `The store in ${config.dataDir} is empty: generating ${SAMPLE_DAYS} days of sample data\n`,
  );
  writeFileSync(file, generateSampleExport({ firstDay: SAMPLE_FIRST_DAY, days: SAMPLE_DAYS }));
  const summary = ingestFiles([file], { dir: config.dataDir });
  if (summary.failures.length > 0) {
    for (const failure of summary.failures) process.stderr.write(`error: ${failure.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`Ingested ${summary.rowsRead} sample rows into ${summary.daysTouched} day files\n`);
}
await import("../src/main.ts");
