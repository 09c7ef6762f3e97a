/**
 * Reads one Eskom Data Portal CSV file, in every form the portal has written, detected from its
 * content (docs/data.md: "Formats"): data-request exports (`ESK####.csv`, 12-hour stamps, an
 * unquoted decimal comma in `Total UCLF+OCLF`), and the live files in `;` with decimal commas,
 * `,` with `.` and E-notation, and `,` with unquoted decimal commas. Columns are matched by header
 * name, never by position.
 *
 * What is never stored as a reading:
 * - a row with no value (an unpublished hour), or whose values are all 0 while it holds a column
 *   that is never 0 in a published hour (the portal's placeholder for an unpublished hour);
 * - a row that cannot be read with certainty (`csv-fields.ts`), counted; a file of which most rows
 *   are uncertain is refused whole;
 * - an actual value for an hour that begins more than an hour after the file was received
 *   (forecasts and installed capacities are kept: they are about hours to come).
 *
 * A live file is known by its header (`portal-forms.ts`): columns another file is the source of
 * are not stored from it, and a row that fails its file's row check is uncertain.
 *
 * A file is refused whole, with a `PortalCsvError` naming the file and the line, for any defect:
 * an HTML page, an unknown column, a bad stamp or number, and any value outside its column's
 * physical bounds (`bounds.ts`). A file that carries the `SAMPLE_COLUMN` is the project's own
 * generated sample, and says so.
 */
import { columns as CATALOG, normalizeColumnName } from "./columns.ts";
import { splitFields } from "./csv-fields.ts";
import type { PortalForm } from "./portal-forms.ts";
import { type Fail, readHeader } from "./portal-layout.ts";
import { type PortalRow, readRows, type SkipReason, type UncertainWhy } from "./portal-rows.ts";
import { HOUR_MS } from "../time.ts";

export { noneSkipped, type PortalRow, SKIP_REASONS, type SkipReason } from "./portal-rows.ts";

/** A parsed file: its catalog columns (indexes into a reading) and its rows with values. */
export interface PortalFile {
  readonly name: string;
  readonly delimiter: ";" | ",";
  /** Every header name, normalized (the set a pull compares with the file's known header). */
  readonly headerNames: readonly string[];
  readonly columns: readonly number[];
  readonly columnNames: readonly string[];
  readonly rows: readonly PortalRow[];
  readonly rowsRead: number;
  readonly skipped: Readonly<Record<SkipReason, number>>;
  /** The first line (1-based) skipped for each reason that skipped any. */
  readonly firstLines: Readonly<Partial<Record<SkipReason, number>>>;
  /**
   * The newest hour (UTC ms) holding an observed value (not a forecast, not an installed
   * capacity), or null: how far the file's data reaches.
   */
  readonly newestObserved: number | null;
  /** Whether the file is generated sample data (it carries the sample column), not the utility's. */
  readonly sample: boolean;
  /** The live file it is, known by its header; undefined for an export or an unknown header. */
  readonly form: PortalForm | undefined;
}

/** How to read a file. */
export interface ParseOptions {
  /** When the file was received (UTC ms); the default is now. */
  readonly receivedAt?: number;
  /** Header names (normalized) whose columns are not read: an operator accepted them unknown. */
  readonly ignore?: ReadonlySet<string>;
  /** The live file it is (the pull knows); by default the one its header names, if any. */
  readonly form?: PortalForm;
}

/** A file that is not a valid portal CSV; `line` is 1-based. */
export class PortalCsvError extends Error {
  readonly file: string;
  readonly line: number;
  constructor(file: string, line: number, reason: string) {
    super(`Cannot ingest line ${line} of "${file}": ${reason}`);
    this.name = "PortalCsvError";
    this.file = file;
    this.line = line;
  }
}

/** Parses the text of a portal CSV file; `name` is used in messages only. */
export function parsePortalCsv(text: string, name: string, options: ParseOptions = {}): PortalFile {
  const fail: Fail = (line, reason) => {
    throw new PortalCsvError(name, line, reason);
  };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const head = text.trimStart();
  if (head === "") fail(1, "the file is empty");
  if (head.startsWith("<")) {
    fail(1, "this is an HTML page, not a portal CSV (the portal was probably down when it was saved)");
  }
  const lines = text.split(/\r?\n/);
  const layout = readHeader(lines[0]!, options.ignore ?? new Set(), options.form, fail);
  const latest = (options.receivedAt ?? Date.now()) + HOUR_MS;
  const { byHour, skipped, firstLines, rowsRead, firstUncertain, why } = readRows(
    lines,
    layout,
    latest,
    fail,
  );
  // Of the rows that hold something to store, most are uncertain: the file is not read at all.
  const holding = rowsRead - skipped.blank - skipped.placeholder;
  if (skipped.uncertain * 2 > holding) {
    const reasons = [...why].map((w) => (w === "check" ? layout.form!.rowCheckText! : UNCERTAIN_TEXT[w]));
    fail(
      firstUncertain || 1,
      `${skipped.uncertain} of its ${holding} rows with values cannot be read with certainty ` +
        `(${reasons.join("; ")}), so nothing of it is stored`,
    );
  }
  const rows = [...byHour.values()];
  return {
    name,
    delimiter: layout.delimiter,
    headerNames: layout.headerNames,
    columns: layout.columns,
    columnNames: layout.columnNames,
    rows,
    rowsRead,
    skipped,
    firstLines,
    newestObserved: newestObserved(rows, layout.columns),
    sample: layout.sampleAt >= 0,
    form: layout.form,
  };
}

// The newest hour of `rows` with a value in a column that is observed, not forecast or installed.
function newestObserved(rows: readonly PortalRow[], columns: readonly number[]): number | null {
  const observed = columns.map((c) => CATALOG[c]!.kind !== "forecast" && CATALOG[c]!.kind !== "installed");
  let newest: number | null = null;
  for (const row of rows) {
    if (newest !== null && row.hour <= newest) continue;
    if (observed.some((yes, v) => yes && !Number.isNaN(row.values[v]!))) newest = row.hour;
  }
  return newest;
}

const UNCERTAIN_TEXT: Readonly<Record<Exclude<UncertainWhy, "check">, string>> = {
  ambiguous: 'a "," delimiter with unquoted decimal commas makes their fields ambiguous',
  conflict: "an hour is given twice with different values",
};

/** The header's names, normalized, as `parsePortalCsv` reads them (empty for an empty text). */
export function headerNamesOf(text: string): string[] {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const end = text.search(/\r?\n/);
  const header = text.slice(start, end === -1 ? undefined : end);
  if (header.trim() === "") return [];
  return splitFields(header, header.includes(";") ? ";" : ",").map((name) => normalizeColumnName(name));
}
