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
import { columnIndex, columns, normalizeColumnName, SAMPLE_COLUMN, TIMESTAMP_COLUMNS } from "./columns.ts";
import { certainFields, type FieldLayout, splitFields } from "./csv-fields.ts";
import { boundOf } from "./bounds.ts";
import { formOfHeader, type PortalForm } from "./portal-forms.ts";
import { parseSastStamp } from "./sast-stamp.ts";
import { HOUR_MS } from "../time.ts";

/** One source row: its hour (UTC ms) and a value per file column, NaN where blank. */
export interface PortalRow {
  readonly line: number;
  readonly hour: number;
  readonly values: Float64Array;
}

/** Why rows were passed over, and how many. `future`: rows whose actual values were left out. */
export type SkipReason = "blank" | "placeholder" | "uncertain" | "future";

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

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const EXPORT_QUIRK = "total_uclf_oclf";

type Fail = (line: number, reason: string) => never;

/** Where each field of a row goes. */
interface Layout extends FieldLayout {
  readonly headerNames: readonly string[];
  readonly rawNames: readonly string[];
  /** Per header position: the index into a row's values, or -1 (a stamp, the sample mark, ignored). */
  readonly valueAt: readonly number[];
  readonly columns: number[];
  readonly columnNames: string[];
  /** Per value: whether it is kept for hours still to come (a forecast, an installed capacity). */
  readonly keptAhead: readonly boolean[];
  /** Per value: whether it takes part in the placeholder test (not an installed capacity). */
  readonly tested: readonly boolean[];
  /** Per value: whether it is read for the row check only, and not stored. */
  readonly checkOnly: readonly boolean[];
  readonly sampleAt: number;
  readonly form: PortalForm | undefined;
}

function readHeader(
  header: string,
  given: ReadonlySet<string>,
  chosen: PortalForm | undefined,
  fail: Fail,
): Layout {
  const delimiter = header.includes(";") ? ";" : ",";
  const rawNames = splitFields(header, delimiter).map((name) => name.trim());
  if (rawNames.length < 2) fail(1, "the header names no columns; expected a timestamp and readings");
  const headerNames = rawNames.map(normalizeColumnName);
  const form = chosen ?? formOfHeader(headerNames.filter((name) => name !== SAMPLE_COLUMN));
  const ignore = new Set([...given, ...(form?.ignore ?? [])]);
  const stamps = new Set<number>();
  const valueAt: number[] = [];
  const columnsOut: number[] = [];
  const columnNames: string[] = [];
  let sampleAt = -1;
  headerNames.forEach((name, i) => {
    if (headerNames.indexOf(name) !== i) fail(1, `column "${rawNames[i]}" appears twice`);
    valueAt.push(-1);
    if (TIMESTAMP_COLUMNS.has(name)) stamps.add(i);
    else if (name === SAMPLE_COLUMN) sampleAt = i;
    else if (!ignore.has(name)) {
      const index = columnIndex(name);
      if (index < 0) fail(1, `unknown column "${rawNames[i]}"; this is not a known Eskom Data Portal header`);
      valueAt[i] = columnsOut.length;
      columnsOut.push(index);
      columnNames.push(name);
    }
  });
  if (stamps.size === 0) fail(1, `no timestamp column ("Date Time Hour Beginning" or "DateTimeKey")`);
  const kinds = columnsOut.map((c) => columns[c]!.kind);
  const checkOnly = columnNames.map((name) => form?.checkOnly?.includes(name) ?? false);
  return {
    delimiter,
    width: rawNames.length,
    stamps,
    exportQuirkAt: delimiter === "," ? headerNames.indexOf(EXPORT_QUIRK) : -1,
    headerNames,
    rawNames,
    valueAt,
    columns: columnsOut,
    columnNames,
    keptAhead: kinds.map((kind) => kind === "forecast" || kind === "installed"),
    tested: kinds.map((kind, v) => kind !== "installed" && !checkOnly[v]),
    checkOnly,
    sampleAt,
    form,
  };
}

// The row's hour: every stamp column must name the same one.
function rowHour(fields: readonly string[], lineNo: number, layout: Layout, fail: Fail): number {
  let hour: number | undefined;
  for (const at of layout.stamps) {
    let parsed = 0;
    try {
      parsed = parseSastStamp(fields[at]!);
    } catch (error) {
      fail(lineNo, (error as Error).message);
    }
    if (hour !== undefined && parsed !== hour) fail(lineNo, `its timestamp columns name different hours`);
    hour = parsed;
  }
  return hour!;
}

// The values of one row, NaN where empty.
function rowValues(fields: readonly string[], lineNo: number, layout: Layout, fail: Fail): Float64Array {
  const values = new Float64Array(layout.columns.length);
  fields.forEach((field, f) => {
    const v = layout.valueAt[f]!;
    if (v < 0) return;
    const text = field.trim();
    if (text === "") {
      values[v] = NaN;
      return;
    }
    if (!NUMBER.test(text))
      fail(lineNo, `column "${layout.rawNames[f]}" holds "${text}", which is not a number`);
    values[v] = Number(text);
  });
  return values;
}

// Whether a row with values is the portal's placeholder for an unpublished hour: every value 0,
// with a column among them that is never 0 in a published hour.
function isPlaceholder(values: Float64Array, layout: Layout): boolean {
  let neverZero = false;
  for (let v = 0; v < values.length; v++) {
    const value = values[v]!;
    if (Number.isNaN(value) || !layout.tested[v]) continue;
    if (value !== 0) return false;
    if (columns[layout.columns[v]!]!.neverZero) neverZero = true;
  }
  return neverZero;
}

// Refuses the file when a value lies outside its column's bounds.
function checkBounds(values: Float64Array, hour: number, lineNo: number, layout: Layout, fail: Fail): void {
  for (let v = 0; v < values.length; v++) {
    const value = values[v]!;
    if (Number.isNaN(value)) continue;
    const bound = boundOf(layout.columnNames[v]!);
    if (value >= bound.min && value <= bound.max) continue;
    const sast = new Date(hour + 2 * HOUR_MS).toISOString().slice(0, 16).replace("T", " ");
    fail(
      lineNo,
      `hour ${sast} SAST: "${layout.rawNames[layout.valueAt.indexOf(v)]}" is ${value} ${bound.unit}, ` +
        `outside its bounds of ${bound.min} to ${bound.max} ${bound.unit} (${bound.why}); ` +
        `the file's columns are not what their names say, so nothing of it is stored`,
    );
  }
}

// Why the row fails its file's row check, or undefined when it passes (or there is none).
function failedCheck(values: Float64Array, layout: Layout): string | undefined {
  const check = layout.form?.rowCheck;
  if (check === undefined) return undefined;
  return check((name) => {
    const v = layout.columnNames.indexOf(name);
    return v < 0 ? NaN : values[v]!;
  });
}

// Leaves out what is read only for the row check; returns whether any value is left.
function dropCheckOnly(values: Float64Array, layout: Layout): boolean {
  let left = false;
  for (let v = 0; v < values.length; v++) {
    if (layout.checkOnly[v]) values[v] = NaN;
    else if (!Number.isNaN(values[v]!)) left = true;
  }
  return left;
}

// Leaves out the actual values of an hour that begins more than an hour after receipt; returns
// whether any value is left.
function dropFuture(values: Float64Array, layout: Layout): { dropped: boolean; left: boolean } {
  let dropped = false;
  let left = false;
  for (let v = 0; v < values.length; v++) {
    if (Number.isNaN(values[v]!)) continue;
    if (layout.keptAhead[v]) left = true;
    else {
      values[v] = NaN;
      dropped = true;
    }
  }
  return { dropped, left };
}

/** Why rows are uncertain, in the words of a refusal. */
type UncertainWhy = "ambiguous" | "conflict" | "check";

/** The rows read, by hour, and what was passed over. */
interface Rows {
  readonly byHour: Map<number, PortalRow>;
  readonly skipped: Record<SkipReason, number>;
  readonly rowsRead: number;
  readonly firstUncertain: number;
  readonly why: ReadonlySet<UncertainWhy>;
}

// What one data line is: a row to store (its actual values perhaps dropped as future), or why not.
type Line =
  | { readonly kind: "row"; readonly row: PortalRow; readonly future: boolean }
  | { readonly kind: "blank" | "placeholder" | "future" }
  | { readonly kind: "uncertain"; readonly why: UncertainWhy };

function readLine(line: string, lineNo: number, layout: Layout, latest: number, fail: Fail): Line {
  let fields: string[] | undefined;
  try {
    fields = certainFields(line, layout);
  } catch (error) {
    fail(lineNo, (error as Error).message);
  }
  if (fields === undefined) return { kind: "uncertain", why: "ambiguous" };
  const hour = rowHour(fields, lineNo, layout, fail);
  const values = rowValues(fields, lineNo, layout, fail);
  if (values.every(Number.isNaN)) return { kind: "blank" };
  if (isPlaceholder(values, layout)) return { kind: "placeholder" };
  checkBounds(values, hour, lineNo, layout, fail);
  if (failedCheck(values, layout) !== undefined) return { kind: "uncertain", why: "check" };
  if (!dropCheckOnly(values, layout)) return { kind: "blank" };
  let future = false;
  if (hour > latest) {
    const { dropped, left } = dropFuture(values, layout);
    if (!left) return { kind: "future" };
    future = dropped;
  }
  return { kind: "row", row: { line: lineNo, hour, values }, future };
}

// Every data line read as the rules say; an hour given twice with different values is uncertain.
function readRows(lines: readonly string[], layout: Layout, latest: number, fail: Fail): Rows {
  const byHour = new Map<number, PortalRow>();
  const conflicted = new Set<number>();
  const skipped: Record<SkipReason, number> = { blank: 0, placeholder: 0, uncertain: 0, future: 0 };
  let rowsRead = 0;
  let firstUncertain = 0;
  const why = new Set<UncertainWhy>();
  const uncertain = (lineNo: number, reason: UncertainWhy) => {
    skipped.uncertain++;
    firstUncertain ||= lineNo;
    why.add(reason);
  };
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() === "") continue;
    rowsRead++;
    const read = readLine(lines[i]!, i + 1, layout, latest, fail);
    if (read.kind === "uncertain") uncertain(i + 1, read.why);
    else if (read.kind !== "row") skipped[read.kind]++;
    else {
      if (read.future) skipped.future++;
      const { row } = read;
      const before = byHour.get(row.hour);
      if (before === undefined) byHour.set(row.hour, row);
      else if (!sameValues(before.values, row.values)) conflicted.add(row.hour);
    }
  }
  for (const hour of conflicted) {
    const { line } = byHour.get(hour)!;
    byHour.delete(hour);
    uncertain(line, "conflict");
    uncertain(line, "conflict");
  }
  return { byHour, skipped, rowsRead, firstUncertain, why };
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
  const { byHour, skipped, rowsRead, firstUncertain, why } = readRows(lines, layout, latest, fail);
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
  return {
    name,
    delimiter: layout.delimiter,
    headerNames: layout.headerNames,
    columns: layout.columns,
    columnNames: layout.columnNames,
    rows: [...byHour.values()],
    rowsRead,
    skipped,
    sample: layout.sampleAt >= 0,
    form: layout.form,
  };
}

const UNCERTAIN_TEXT: Readonly<Record<Exclude<UncertainWhy, "check">, string>> = {
  ambiguous: 'a "," delimiter with unquoted decimal commas makes their fields ambiguous',
  conflict: "an hour is given twice with different values",
};

function sameValues(a: Float64Array, b: Float64Array): boolean {
  return a.every((value, i) => Object.is(value, b[i]));
}

/** The header's names, normalized, as `parsePortalCsv` reads them (empty for an empty text). */
export function headerNamesOf(text: string): string[] {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const end = text.search(/\r?\n/);
  const header = text.slice(start, end === -1 ? undefined : end);
  if (header.trim() === "") return [];
  return splitFields(header, header.includes(";") ? ";" : ",").map((name) => normalizeColumnName(name));
}
