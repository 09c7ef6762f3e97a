/**
 * `npm run evaluate-stress [-- DIR]`: judges grid-stress v1 on the real Eskom files (default
 * ../shared/data/eskom): its distribution, its ROC AUC for the 2018 hours with load reduction
 * (MLR + ILS > 0) against the other 2018 hours, and its mean in the February 2023 load-shedding
 * hours next to the 2018 mean. The load-reduction columns are read here only as labels.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stressHours, type StressHour } from "../src/datasets/grid-stress.ts";
import { rocAuc, summarize } from "../src/features/evaluation.ts";
import { STRESS_BANDS, stressBand, STRESS_VERSION, STRESS_WEIGHTS } from "../src/features/stress-formula.ts";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { requireColumn } from "../src/source/columns.ts";
import { valueAt } from "../src/source/reading.ts";
import { createReadingStore, type ReadingStore } from "../src/store/reading-store.ts";
import { dayStart, DAY_MS } from "../src/time.ts";

const dir = resolve(process.argv[2] ?? join(import.meta.dirname, "..", "..", "shared", "data", "eskom"));
const EXPORT = join(dir, "eskom_data_v1-1.csv");
const LIVE = [
  "Station_Build_Up.csv",
  "System_hourly_actual_and_forecasted_demand.csv",
  "Hourly_Generation.csv",
].map((name) => join(dir, "portal_snapshot_2023-02-21", name));
for (const file of [EXPORT, ...LIVE]) {
  if (!existsSync(file)) {
    process.stderr.write(`Cannot evaluate: "${file}" is missing. Pass the folder of the real Eskom files.\n`);
    process.exit(2);
  }
}

const MLR = requireColumn("manual_load_reduction_mlr");
const ILS = requireColumn("ils_usage");

function load(files: string[]): { store: ReadingStore; hours: StressHour[]; cleanup: () => void } {
  const data = mkdtempSync(join(tmpdir(), "gds-eval-"));
  const summary = ingestFiles(files, { dir: data });
  if (summary.failures.length > 0) throw new Error(summary.failures.map((f) => f.message).join("\n"));
  const store = createReadingStore({ dir: data, cacheDays: 10_000 });
  const days = [...store.refresh().manifest.keys()];
  const hours = stressHours(store, dayStart(days[0]!), dayStart(days.at(-1)!) + DAY_MS);
  return { store, hours, cleanup: () => rmSync(data, { recursive: true, force: true }) };
}

function reduction(store: ReadingStore, hour: number): number {
  const r = store.reading(hour);
  return (valueAt(r, MLR) ?? 0) + (valueAt(r, ILS) ?? 0);
}

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(3));
const line = (label: string, stats: Record<string, number>) =>
  `  ${label.padEnd(28)} ${Object.entries(stats)
    .map(([k, v]) => `${k}=${fmt(v)}`)
    .join(" ")}`;

const y2018 = load([EXPORT]);
const y2023 = load(LIVE);
const out: string[] = [`Grid-stress ${STRESS_VERSION} on the real Eskom files in ${dir}`, ""];

const scored2018 = y2018.hours.filter((h) => h.value !== null);
const values2018 = scored2018.map((h) => h.value!);
const labels2018 = scored2018.map((h) => reduction(y2018.store, h.hour) > 0);
const auc = rocAuc(values2018, labels2018);
const positives = labels2018.filter(Boolean).length;

const shedding2023 = y2023.hours.filter(
  (h) => h.value !== null && (valueAt(y2023.store.reading(h.hour), MLR) ?? 0) > 0,
);
const all2023 = y2023.hours.filter((h) => h.value !== null);
const bands = (hours: StressHour[]) =>
  Object.fromEntries(STRESS_BANDS.map(([b]) => [b, hours.filter((h) => stressBand(h.value) === b).length]));

out.push("Distribution of value");
out.push(line("2018 export, all hours", summarize(values2018)));
out.push(line("2018 bands (hours)", bands(scored2018)));
out.push(line("2023 live, all hours", summarize(all2023.map((h) => h.value!))));
out.push(line("2023 load-shedding hours", summarize(shedding2023.map((h) => h.value!))));
out.push(line("2023 shedding bands (hours)", bands(shedding2023)));
out.push("");
out.push("2018: hours with load reduction (MLR + ILS > 0) against the others");
out.push(
  `  ROC AUC of value             ${auc.toFixed(3)} (${positives} positive of ${labels2018.length} hours)`,
);
for (const name of Object.keys(STRESS_WEIGHTS) as (keyof typeof STRESS_WEIGHTS)[]) {
  const scored = scored2018.map((h) => h.components[name]);
  const present = scored.map((c) => c !== null);
  const a = rocAuc(
    scored.filter((_, i) => present[i]).map((c) => c!),
    labels2018.filter((_, i) => present[i]),
  );
  out.push(`  ROC AUC of ${name.padEnd(19)} ${a.toFixed(3)}`);
}
const mean2018 = summarize(values2018).mean!;
const meanShedding = summarize(shedding2023.map((h) => h.value!)).mean!;
out.push("");
out.push("Mean value");
out.push(`  2018 export, all hours       ${mean2018.toFixed(3)}`);
out.push(
  `  2023 load-shedding hours     ${meanShedding.toFixed(3)} (${shedding2023.length} hours with MLR > 0)`,
);
out.push(
  "  (the live files carry no capacity or same-hour forecast: 2023 values rest on residual_demand, ocgt_ramp and renewable_shortfall)",
);
process.stdout.write(out.join("\n") + "\n");
process.stdout.write(
  JSON.stringify({
    version: STRESS_VERSION,
    auc_2018: Number(auc.toFixed(4)),
    positives_2018: positives,
    hours_2018: labels2018.length,
    mean_2018: Number(mean2018.toFixed(4)),
    mean_2023_load_shedding: Number(meanShedding.toFixed(4)),
    hours_2023_load_shedding: shedding2023.length,
  }) + "\n",
);
y2018.cleanup();
y2023.cleanup();
