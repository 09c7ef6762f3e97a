/**
 * Gives a sample store its weekly and monthly availability (docs/data.md: "Sample data"): the
 * sample's hours generated again (the same options give the same hours), summed into the portal's
 * three files, and each kept through the real reader as a revision marked sample. A store that
 * already holds any revision of them is left as it is.
 */
import { createHash } from "node:crypto";
import { parsePeriodCsv } from "../source/period-csv.ts";
import { periodForm } from "../source/period-forms.ts";
import { PeriodRevisions } from "../store/period-revisions.ts";
import { generateSampleExport } from "./sample-export.ts";
import { type SampleHour, samplePeriodFiles } from "./sample-periods.ts";

/** Keeps the sample's period files, received at `now`; returns how many periods were kept. */
export function seedSamplePeriods(
  dir: string,
  sample: { lastHour: number; days: number },
  now: number,
): number {
  const files = samplePeriodFiles(sampleHours(sample));
  const names = Object.keys(files);
  if (names.some((name) => new PeriodRevisions(dir, name).revisions().length > 0)) return 0;
  let kept = 0;
  for (const name of names) {
    const text = files[name]!;
    const file = parsePeriodCsv(text, name, { receivedAt: now, form: periodForm(name) });
    const sha256 = createHash("sha256").update(text).digest("hex");
    kept += new PeriodRevisions(dir, name).add(file, { receivedAt: now, sha256, sample: true }).added;
  }
  return kept;
}

/** The sample's hours and their outages, as `generateSampleExport` makes them. */
export function sampleHours(sample: { lastHour: number; days: number }): SampleHour[] {
  const hours: SampleHour[] = [];
  generateSampleExport({ ...sample, onHour: (local, outages) => hours.push({ local, ...outages }) });
  return hours;
}
