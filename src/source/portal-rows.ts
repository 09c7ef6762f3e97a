/**
 * A portal CSV's data lines read as the rules of `portal-csv.ts` say: each line a row to store, or
 * why not (blank, the portal's placeholder, an hour to come, uncertain); a value out of its
 * column's bounds refuses the file.
 */
import { columns } from "./columns.ts";
import { certainFields, splitFields } from "./csv-fields.ts";
import { boundOf } from "./bounds.ts";
import type { Fail, Layout } from "./portal-layout.ts";
import { parseSastStamp } from "./sast-stamp.ts";
import { SAST_OFFSET_MS } from "../time.ts";

/** One source row: its hour (UTC ms) and a value per file column, NaN where blank. */
export interface PortalRow {
  readonly line: number;
  readonly hour: number;
  readonly values: Float64Array;
}

/**
 * Why rows were passed over: `blank` (no value: an hour not yet published), `placeholder` (all 0:
 * the same), `uncertain` (not readable with certainty), `future` (actual values of an hour to
 * come, left out) and `cut` (fewer fields than the header: a damaged line).
 */
export type SkipReason = "blank" | "placeholder" | "uncertain" | "future" | "cut";

/** The reasons, in the order a summary gives them. */
export const SKIP_REASONS: readonly SkipReason[] = ["blank", "placeholder", "uncertain", "future", "cut"];

/** No row skipped yet, for each reason. */
export function noneSkipped(): Record<SkipReason, number> {
  return { blank: 0, placeholder: 0, uncertain: 0, future: 0, cut: 0 };
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

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
    const sast = new Date(hour + SAST_OFFSET_MS).toISOString().slice(0, 16).replace("T", " ");
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
export type UncertainWhy = "ambiguous" | "conflict" | "check";

/** The rows read, by hour, and what was passed over. */
export interface Rows {
  readonly byHour: Map<number, PortalRow>;
  readonly skipped: Record<SkipReason, number>;
  /** The first line (1-based) skipped for each reason. */
  readonly firstLines: Partial<Record<SkipReason, number>>;
  readonly rowsRead: number;
  readonly firstUncertain: number;
  readonly why: ReadonlySet<UncertainWhy>;
}

// What one data line is: a row to store (its actual values perhaps dropped as future), or why not.
type Line =
  | { readonly kind: "row"; readonly row: PortalRow; readonly future: boolean }
  | { readonly kind: "blank" | "placeholder" | "future" }
  | { readonly kind: "uncertain"; readonly why: UncertainWhy }
  | { readonly kind: "cut"; readonly fields: number };

function readLine(line: string, lineNo: number, layout: Layout, latest: number, fail: Fail): Line {
  // A split value only adds fields: fewer than the header's is a line cut short.
  const count = splitFields(line, layout.delimiter).length;
  if (count < layout.width) return { kind: "cut", fields: count };
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

/** Every data line read as the rules say; an hour given twice with different values is uncertain. */
export function readRows(lines: readonly string[], layout: Layout, latest: number, fail: Fail): Rows {
  const byHour = new Map<number, PortalRow>();
  const conflicted = new Set<number>();
  const skipped = noneSkipped();
  const firstLines: Partial<Record<SkipReason, number>> = {};
  const skip = (reason: SkipReason, lineNo: number) => {
    skipped[reason]++;
    firstLines[reason] ??= lineNo;
  };
  let rowsRead = 0;
  let firstUncertain = 0;
  const why = new Set<UncertainWhy>();
  const uncertain = (lineNo: number, reason: UncertainWhy) => {
    skip("uncertain", lineNo);
    firstUncertain ||= lineNo;
    why.add(reason);
  };
  const last = lastLineWithText(lines);
  // Every file the portal writes ends with a line break: a last line without one may have lost
  // the end of its last value, which no field count shows.
  if (last > 0 && last === lines.length - 1) {
    fail(
      last + 1,
      "the last line has no line break, so its last value may be cut: the download ended early, " +
        "so nothing of the file is stored; download it again (or, for a file you know is whole, end it with a line break)",
    );
  }
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() === "") continue;
    rowsRead++;
    const read = readLine(lines[i]!, i + 1, layout, latest, fail);
    if (read.kind === "cut") cut(read.fields, i === last, i + 1, layout, fail);
    if (read.kind === "uncertain") uncertain(i + 1, read.why);
    else if (read.kind !== "row") skip(read.kind, i + 1);
    else {
      if (read.future) skip("future", i + 1);
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
  return { byHour, skipped, firstLines, rowsRead, firstUncertain, why };
}

// The index of the last line that holds anything.
function lastLineWithText(lines: readonly string[]): number {
  for (let i = lines.length - 1; i > 0; i--) if (lines[i]!.trim() !== "") return i;
  return 0;
}

// A line with fewer fields than the header: the last one means the download ended early, and
// nothing of the file is stored; in a ";" file any is a damaged file. Otherwise it is skipped.
function cut(fields: number, isLast: boolean, lineNo: number, layout: Layout, fail: Fail): void {
  if (isLast) {
    fail(
      lineNo,
      `the last line is cut short (${fields} of the header's ${layout.width} fields): the download ` +
        "ended early, so nothing of the file is stored; download it again",
    );
  }
  if (layout.delimiter === ";")
    fail(lineNo, `expected ${layout.width} fields as in the header, found ${fields}`);
}

function sameValues(a: Float64Array, b: Float64Array): boolean {
  return a.every((value, i) => Object.is(value, b[i]));
}
