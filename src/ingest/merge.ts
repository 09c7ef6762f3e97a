/**
 * The merge rule for readings: by hour, field by field. A blank source value never overwrites a
 * stored one; a non-blank one replaces it, so that files applied in order let the later one win.
 * A second source (`fill`) only fills what no file gave: it never replaces a stored value.
 *
 * A PowerBI report (`report`) is such a second source, and each value it fills is marked as its
 * (`from_powerbi_report`, a bit per column of `REPORT_COLUMNS`); where a file gave the hour already
 * the file's value stays, and a report's value that differs from it by more than the file's rounding
 * is counted and the first named, never stored over it (but in `quiet` columns: the report's file
 * only checks them, and another file is known to differ). A report revises the values it gave
 * itself. A file that later writes a marked value takes it back: the mark goes.
 */
import { PROVENANCE_COLUMN, REPORT_COLUMNS, requireColumn } from "../source/columns.ts";
import type { PortalFile } from "../source/portal-csv.ts";
import { emptyReading, type Reading } from "../source/reading.ts";
import { dayKey, DAY_MS, HOUR_MS } from "../time.ts";
import type { Day } from "../store/day-file.ts";

/** How far a report's value may be from a file's before they disagree: the files' whole MW. */
export const REPORT_TOLERANCE_MW = 0.5;

const MARK = requireColumn(PROVENANCE_COLUMN);
const REPORT_BIT = new Map(REPORT_COLUMNS.map((name, bit) => [requireColumn(name), 1 << bit]));

/** How a file merges. */
export interface MergeOptions {
  /** Fills only what no file gave. */
  readonly fill?: boolean;
  /** A PowerBI report: fills, marks what it filled, and counts where it disagrees. */
  readonly report?: boolean;
  /** Columns (by name) a report's disagreement is not counted in. */
  readonly quiet?: ReadonlySet<string>;
}

/** A report's value that a file's differs from. */
export interface Disagreement {
  readonly hour: number;
  readonly column: string;
  readonly stored: number;
  readonly report: number;
}

/** What a merge changed. */
export interface Merged {
  /** Hours whose stored values changed. */
  readonly changed: number;
  /** A report's values that differ from a file's for the same hour and column (none stored). */
  readonly disagreements: number;
  readonly firstDisagreement?: Disagreement;
}

// Whether the hour's value of a column is marked as a report's.
function marked(reading: Reading, column: number): boolean {
  const bit = REPORT_BIT.get(column);
  return bit !== undefined && !Number.isNaN(reading[MARK]!) && (reading[MARK]! & bit) !== 0;
}

// Sets or clears a column's bit of the hour's mark; whether the mark changed.
function mark(reading: Reading, column: number, on: boolean): boolean {
  const bit = REPORT_BIT.get(column);
  if (bit === undefined) return false;
  const before = Number.isNaN(reading[MARK]!) ? 0 : reading[MARK]!;
  const after = on ? before | bit : before & ~bit;
  if (after === before) return false;
  reading[MARK] = after === 0 ? NaN : after;
  return true;
}

/** Applies every row of `file` to the days it touches; `loadDay` supplies each day once. */
export function mergeFile(
  file: PortalFile,
  loadDay: (key: string) => Day,
  options: MergeOptions = {},
): Merged {
  const fill = options.fill === true || options.report === true;
  let changed = 0;
  let disagreements = 0;
  let firstDisagreement: Disagreement | undefined;
  for (const row of file.rows) {
    const key = dayKey(row.hour);
    const day = loadDay(key);
    const h = Math.floor((row.hour - day.start) / HOUR_MS);
    if (h < 0 || h >= DAY_MS / HOUR_MS) throw new RangeError(`Hour ${row.hour} is not in day ${key}`);
    let reading = day.hours[h];
    let touched = false;
    for (let f = 0; f < file.columns.length; f++) {
      const value = row.values[f]!;
      if (Number.isNaN(value)) continue;
      reading ??= day.hours[h] = emptyReading();
      const c = file.columns[f]!;
      const stored = reading[c]!;
      // A report revises its own values; a file's it only checks.
      const own = options.report === true && marked(reading, c);
      if (fill && !Number.isNaN(stored) && !own) {
        const counted = options.report === true && !options.quiet?.has(file.columnNames[f]!);
        if (counted && Math.abs(stored - value) > REPORT_TOLERANCE_MW) {
          disagreements++;
          firstDisagreement ??= { hour: row.hour, column: file.columnNames[f]!, stored, report: value };
        }
        continue;
      }
      if (!Object.is(stored, value)) {
        reading[c] = value;
        touched = true;
      }
      // The value is the report's now, or a file's again.
      if (mark(reading, c, options.report === true)) touched = true;
    }
    if (touched) changed++;
  }
  return { changed, disagreements, ...(firstDisagreement === undefined ? {} : { firstDisagreement }) };
}
