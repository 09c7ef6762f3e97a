/**
 * `npm run forecast-issue -- --issued-at INSTANT FILE`: keeps a download of Eskom's 3-month
 * forecast (`Official_hourly_forecast_for_next_3_months.csv`) that the pull did not make, such as
 * an archive of your own, as the issue first seen at INSTANT (docs/data.md: "Eskom's 3-month
 * forecast"). Issues are added oldest first: one older than the newest kept is refused.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { ForecastIssues } from "../src/forecasts/forecast-issues.ts";
import { PortalCsvError } from "../src/source/portal-csv.ts";

const USAGE =
  "Usage: npm run forecast-issue -- --issued-at INSTANT FILE\n" +
  "  INSTANT: when the file was downloaded, ISO 8601 with an offset (e.g. 2023-02-12T12:00:02Z).\n" +
  "Keeps FILE as an issue of Eskom's 3-month forecast in DATA_DIR (default ./data).\n";

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const at = args.indexOf("--issued-at");
const instant = at >= 0 ? args[at + 1] : undefined;
const files = args.filter((_, i) => i !== at && i !== at + 1);
const issuedAt = instant !== undefined && /(Z|[+-]\d\d:?\d\d)$/.test(instant) ? Date.parse(instant) : NaN;
if (files.length !== 1 || Number.isNaN(issuedAt)) {
  process.stderr.write(
    (Number.isNaN(issuedAt) && instant !== undefined
      ? `error: --issued-at "${instant}" is not an ISO 8601 instant with an offset\n`
      : "") + USAGE,
  );
  process.exit(2);
}
const file = files[0]!;
const dir = resolve(process.env.DATA_DIR || "data");
try {
  const body = readFileSync(file);
  const sha256 = createHash("sha256").update(body).digest("hex");
  const added = new ForecastIssues(dir).add(body.toString("utf8"), {
    name: basename(file),
    receivedAt: issuedAt,
    sha256,
  });
  const { issued_at, hours, first, last } = added.entry;
  process.stdout.write(
    added.result === "issued"
      ? `${basename(file)}: a new forecast issue, of ${issued_at}: ${hours} target hours, ${first} to ${last}\n`
      : `${basename(file)}: the same forecast as the issue of ${issued_at}, kept once\n`,
  );
} catch (error) {
  const known = error instanceof PortalCsvError || error instanceof RangeError;
  const message = (error as Error).message;
  process.stderr.write(`error: ${known ? message : `Cannot keep "${basename(file)}": ${message}`}\n`);
  process.exit(1);
}
