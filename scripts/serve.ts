/**
 * `make serve`: seeds an empty store with a year of generated sample data (through the real
 * ingest path), creates a first key and the `admin` account when there are none, then starts the
 * service.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { loadManifest } from "../src/store/manifest.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { readKeys } from "../src/keys/key-file.ts";
import { createAccount } from "../src/accounts/account-admin.ts";
import { readAccounts } from "../src/accounts/account-file.ts";

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
const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
const base = `http://${host}:${config.port}`;
if (readKeys(config.dataDir).length === 0) {
  const { key } = createKey(config.dataDir, { name: "bootstrap", account: "admin" });
  process.stderr.write(
    [
      "",
      "Created the first API key (account admin, name bootstrap). It is shown only this once:",
      "",
      `    ${key}`,
      "",
      "Try it:",
      "",
      `    curl -H 'X-API-KEY: ${key}' '${base}/api/v1/grid/system-state?start=2025-06-01T00:00:00Z&end=2025-06-01T06:00:00Z'`,
      "",
      "Manage keys with: npm run --silent keys -- help",
      "",
    ].join("\n") + "\n",
  );
}
if (readAccounts(config.dataDir).length === 0) {
  const { oneTimePassword } = await createAccount(config.dataDir, { name: "admin", admin: true });
  process.stderr.write(
    [
      "",
      "Created the dashboard account admin. Its one-time password is shown only this once:",
      "",
      `    ${oneTimePassword}`,
      "",
      `Sign in at ${base}/dashboard/sign-in with username admin and this password;`,
      "you will be asked to choose your own. Manage accounts with: npm run --silent accounts -- help",
      "",
    ].join("\n") + "\n",
  );
}
await import("../src/main.ts");
