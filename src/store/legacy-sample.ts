/**
 * Release 0.1.0's `make serve` seeded an empty store with generated sample data and did not mark
 * it: it wrote `DATA_DIR/sample/sample-export-<first day>-<days>d.csv` and ingested it as if it
 * were the portal's (CHANGELOG.md, 1.0.0, "Upgrading from 0.1.0"). Those days are found again by
 * comparing each stored day with that file, value for value: a day whose every reading is the
 * file's is generated. A store of such days only is marked as sample data by a migration
 * (`migrations.ts`); generated days beside real ones are reported by `verify-store` and the
 * server's start, for the operator to remove (docs/data.md: "Sample data").
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePortalCsv } from "../source/portal-csv.ts";
import { HOUR_MS } from "../time.ts";
import { type Day, dayFileName, parseDay } from "./day-file.ts";
import { loadManifest, type Manifest, READINGS_DIR } from "./manifest.ts";
import { SAMPLE_FILE } from "./sample-mark.ts";

/** Where 0.1.0's `make serve` wrote the sample it generated. */
export const LEGACY_SAMPLE_DIR = "sample";
// The names 0.1.0 gave its sample files; later releases name theirs `sample-export-365d-to-…`.
const LEGACY_SAMPLE_NAME = /^sample-export-\d{4}-\d{2}-\d{2}-\d+d\.csv$/;

/** The stored days equal to a legacy sample file, and how many stored days are not. */
export interface LegacySample {
  /** The sample files, relative to the data directory. */
  readonly files: readonly string[];
  /** The stored days equal to them, oldest first. */
  readonly days: readonly string[];
  /** Stored days that are not. */
  readonly otherDays: number;
}

/**
 * The stored days of the store at `dir` that 0.1.0's `make serve` generated, or undefined when it
 * has none (or is marked as a sample store already, or has no legacy sample file).
 */
export function findLegacySample(dir: string, manifest?: Manifest): LegacySample | undefined {
  const files = legacySampleFiles(dir);
  if (files.length === 0) return undefined;
  const stored = manifest ?? loadManifest(dir);
  const generated = generatedValues(dir, files);
  if (stored.size === 0 || generated.size === 0) return undefined;
  const days = [...stored.keys()].filter((key) => isGenerated(storedDay(dir, key), generated)).sort();
  if (days.length === 0) return undefined;
  return { files, days, otherDays: stored.size - days.length };
}

/**
 * The legacy sample files of an unmarked store, relative to `dir`: none for most stores, found at
 * a stat or two, before any comparison.
 */
function legacySampleFiles(dir: string): string[] {
  const folder = join(dir, LEGACY_SAMPLE_DIR);
  if (!existsSync(folder) || existsSync(join(dir, SAMPLE_FILE))) return [];
  return readdirSync(folder)
    .filter((name) => LEGACY_SAMPLE_NAME.test(name))
    .sort()
    .map((name) => join(LEGACY_SAMPLE_DIR, name));
}

/** Each hour's generated values, by column, from the sample files that parse. */
function generatedValues(dir: string, files: readonly string[]): Map<number, Map<number, number>> {
  const hours = new Map<number, Map<number, number>>();
  for (const file of files) {
    let parsed;
    try {
      parsed = parsePortalCsv(readFileSync(join(dir, file), "utf8"), file);
    } catch {
      continue; // a file that does not parse proves nothing about the store
    }
    for (const row of parsed.rows) {
      const values = hours.get(row.hour) ?? new Map<number, number>();
      parsed.columns.forEach((column, f) => {
        const value = row.values[f]!;
        if (!Number.isNaN(value)) values.set(column, value);
      });
      hours.set(row.hour, values);
    }
  }
  return hours;
}

function storedDay(dir: string, key: string): Day | undefined {
  try {
    return parseDay(readFileSync(join(dir, READINGS_DIR, dayFileName(key)), "utf8"), key);
  } catch {
    return undefined; // a damaged day is verify-store's to report
  }
}

// Whether every stored reading of the day is the sample's, value for value, and it has one.
function isGenerated(
  day: Day | undefined,
  generated: ReadonlyMap<number, ReadonlyMap<number, number>>,
): boolean {
  if (day === undefined) return false;
  let readings = 0;
  for (let h = 0; h < day.hours.length; h++) {
    const reading = day.hours[h];
    if (reading === undefined) continue;
    const values = generated.get(day.start + h * HOUR_MS);
    if (values === undefined) return false;
    for (let c = 0; c < reading.length; c++) {
      const value = values.get(c);
      if (Number.isNaN(reading[c]!) ? value !== undefined : !Object.is(value, reading[c])) return false;
    }
    readings++;
  }
  return readings > 0;
}
