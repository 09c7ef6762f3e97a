/**
 * Reads a portal file of weeks or months (`period-forms.ts`) with the rules of the hourly files
 * (docs/data.md: "Weekly and monthly availability"): a file that cannot be read with certainty is
 * refused whole, naming its line (an HTML page, an unknown header, a cut last line, a value out of
 * bounds, most rows uncertain); a row that cannot is skipped, counted by its reason, with the first
 * line of each. An empty row (the month to come) is blank, not a value; a period that has not
 * begun when the file was received is `future`; a week that does not begin on a Monday, a row
 * that fails the file's check, and a period given twice with different values are `uncertain`.
 *
 * Periods are named by their first day in SAST, `YYYY-MM-DD` (the Monday, the 1st).
 */
import { DAY_MS, SAST_OFFSET_MS } from "../time.ts";
import { normalizeColumnName } from "./columns.ts";
import { splitFields } from "./csv-fields.ts";
import { MAX_OUTAGE_MW, type PeriodColumn, type PeriodForm, periodFormOfHeader } from "./period-forms.ts";
import { noneSkipped, PortalCsvError, type SkipReason } from "./portal-csv.ts";

/** A served value: a number, a label, or null where blank. */
export type PeriodValue = number | string | null;

/** One period of a file: its first day (SAST) and a value per served field. */
export interface PeriodRow {
  readonly period: string;
  readonly line: number;
  readonly values: Readonly<Record<string, PeriodValue>>;
}

/** A period file as read. */
export interface PeriodFile {
  readonly name: string;
  readonly form: PeriodForm;
  /** Its periods, oldest first. */
  readonly rows: readonly PeriodRow[];
  readonly rowsRead: number;
  readonly skipped: Record<SkipReason, number>;
  readonly firstLines: Partial<Record<SkipReason, number>>;
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

// A calendar date, or undefined when the numbers name none.
function calendar(year: number, month: number, day: number): number | undefined {
  const ms = Date.UTC(year, month - 1, day);
  const d = new Date(ms);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day
    ? ms
    : undefined;
}

/**
 * The day a week's stamp names, as UTC ms of its 00:00 written as if UTC: `2026-03-30`,
 * `2026/03/30`, `2026-03-30 00:00:00`, `2026-03-30 12:00:00 AM`, `30-Mar-2026`; else undefined.
 */
export function dayOfStamp(text: string): number | undefined {
  const t = text.trim();
  let m = /^(\d{4})[-/](\d{2})[-/](\d{2})(?:[ T](?:00:00(?::00)?|12:00(?::00)? ?[Aa][Mm]))?$/.exec(t);
  if (m !== null) return calendar(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})-([A-Za-z]{3})-(\d{4})$/.exec(t);
  if (m === null) return undefined;
  const month = MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
  return month === 0 ? undefined : calendar(Number(m[3]), month, Number(m[1]));
}

/** The first day a month's stamp names: `202404`, `2024-04`, `2024-04-01`; else undefined. */
export function monthOfStamp(text: string): number | undefined {
  const t = text.trim();
  const m = /^(\d{4})-?(\d{2})(?:-01)?$/.exec(t);
  return m === null ? undefined : calendar(Number(m[1]), Number(m[2]), 1);
}

// The period a row names, or why it names none with certainty.
function periodOf(form: PeriodForm, text: string): { day: number } | { why: string } {
  if (form.grain === "month") {
    const day = monthOfStamp(text);
    return day === undefined ? { why: `"${text}" is not a month (YYYYMM)` } : { day };
  }
  const day = dayOfStamp(text);
  if (day === undefined) return { why: `"${text}" is not a date` };
  // 1970-01-01 was a Thursday: day 4 of the week counted from Monday 0.
  return (day / DAY_MS + 3) % 7 === 0 ? { day } : { why: `${text} is not a Monday` };
}

// A value as its column reads it; throws the refusal for a value out of bounds.
function valueOf(
  column: PeriodColumn,
  text: string,
  fail: (reason: string) => never,
): PeriodValue | undefined {
  const t = text.trim();
  if (t === "") return null;
  if (column.kind === "label") return /^\d{4}[-/]\d{2,4}$/.test(t) ? t : undefined;
  if (!NUMBER.test(t)) return undefined;
  const value = Number(t);
  const max = column.kind === "percent" ? 100 : MAX_OUTAGE_MW;
  if (value < 0 || value > max) {
    fail(
      `"${column.raw}" is ${t}, outside its bounds (0 to ${max}${column.kind === "percent" ? "%" : " MW"})`,
    );
  }
  return value;
}

const sameValues = (a: PeriodRow["values"], b: PeriodRow["values"]) =>
  Object.keys(a).every((field) => a[field] === b[field]);

/** Reads `text` as the period file its header names (`form`, when the pull knows which it must be). */
export function parsePeriodCsv(
  text: string,
  name: string,
  options: { receivedAt: number; form?: PeriodForm },
): PeriodFile {
  const fail = (line: number, reason: string): never => {
    throw new PortalCsvError(name, line, reason);
  };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") fail(1, "the file is empty");
  if (text.trimStart().startsWith("<")) fail(1, "this is an HTML page, not a portal CSV");
  const lines = text.split(/\r?\n/);
  const delimiter = lines[0]!.includes(";") ? ";" : ",";
  const raw = splitFields(lines[0]!, delimiter).map((n) => n.trim());
  const names = raw.map(normalizeColumnName);
  const form = options.form ?? periodFormOfHeader(names);
  if (form === undefined || periodFormOfHeader(names) !== form) {
    fail(
      1,
      `its header (${raw.join(", ")}) is not that of ${options.form?.name ?? "a known weekly or monthly file"}`,
    );
  }
  const at = (header: string) => names.indexOf(header);
  let last = lines.length - 1;
  while (last > 0 && lines[last]!.trim() === "") last--;
  if (last > 0 && last === lines.length - 1) {
    fail(
      last + 1,
      "the last line has no line break, so its last value may be cut: the download ended early, so nothing of the file is stored; download it again",
    );
  }
  // A period has begun when its first day (SAST) has: one that has not holds no published figure.
  const today = new Date(options.receivedAt + SAST_OFFSET_MS).toISOString().slice(0, 10);
  return readPeriodRows(lines, form!, { at, delimiter, width: raw.length, last, today, fail, name });
}

interface Reading {
  readonly at: (header: string) => number;
  readonly delimiter: string;
  readonly width: number;
  readonly last: number;
  /** The SAST day the file was received, YYYY-MM-DD. */
  readonly today: string;
  readonly fail: (line: number, reason: string) => never;
  readonly name: string;
}

function readPeriodRows(lines: readonly string[], form: PeriodForm, r: Reading): PeriodFile {
  const skipped = noneSkipped();
  const firstLines: Partial<Record<SkipReason, number>> = {};
  const whys = new Set<string>();
  let firstUncertain = 0;
  const skip = (reason: SkipReason, line: number, why?: string) => {
    skipped[reason]++;
    firstLines[reason] ??= line;
    if (reason === "uncertain") firstUncertain ||= line;
    if (why !== undefined) whys.add(why);
  };
  const byPeriod = new Map<string, PeriodRow>();
  const conflicted = new Set<string>();
  let rowsRead = 0;
  for (let i = 1; i <= r.last; i++) {
    const line = i + 1;
    if (lines[i]!.trim() === "") continue;
    rowsRead++;
    // In a ";" file a decimal comma is the decimal point (the portal's older form).
    const split = splitFields(lines[i]!, r.delimiter);
    const fields = r.delimiter === ";" ? split.map((f) => f.replace(",", ".")) : split;
    if (fields.length < r.width) {
      if (i === r.last)
        r.fail(
          line,
          `the last line is cut short (${fields.length} of the header's ${r.width} fields): the download ended early, so nothing of the file is stored; download it again`,
        );
      skip("cut", line);
      continue;
    }
    if (fields.length > r.width) {
      skip("uncertain", line, 'a "," inside a value (a decimal comma?) makes its fields ambiguous');
      continue;
    }
    const read = readRow(form, fields, r, line);
    if (read.kind === "skip") skip(read.reason, line, read.why);
    else if (read.row.period > r.today) skip("future", line);
    else {
      const before = byPeriod.get(read.row.period);
      if (before === undefined) byPeriod.set(read.row.period, read.row);
      else if (!sameValues(before.values, read.row.values)) conflicted.add(read.row.period);
    }
  }
  for (const period of conflicted) {
    skip("uncertain", byPeriod.get(period)!.line, "a period is given twice with different values");
    skipped.uncertain++;
    byPeriod.delete(period);
  }
  const holding = rowsRead - skipped.blank - skipped.placeholder;
  if (skipped.uncertain * 2 > holding) {
    r.fail(
      firstUncertain || 1,
      `${skipped.uncertain} of its ${holding} rows with values cannot be read with certainty (${[...whys].join("; ")}), so nothing of it is stored`,
    );
  }
  const rows = [...byPeriod.values()].sort((a, b) => (a.period < b.period ? -1 : 1));
  return { name: r.name, form, rows, rowsRead, skipped, firstLines };
}

type RowRead =
  | { readonly kind: "row"; readonly row: PeriodRow }
  | { readonly kind: "skip"; readonly reason: SkipReason; readonly why?: string };

function readRow(form: PeriodForm, fields: readonly string[], r: Reading, line: number): RowRead {
  const fail = (reason: string) => r.fail(line, reason);
  const values: Record<string, PeriodValue> = {};
  for (const column of form.columns) {
    const value = valueOf(column, fields[r.at(column.header)]!, fail);
    if (value === undefined) {
      return {
        kind: "skip",
        reason: "uncertain",
        why: `"${column.raw}" holds something that is not a value`,
      };
    }
    values[column.field] = value;
  }
  const stamp = fields[r.at(form.period)]!;
  const numbers = form.columns.filter((c) => c.kind !== "label");
  if (numbers.every((c) => values[c.field] === null)) return { kind: "skip", reason: "blank" };
  if (numbers.every((c) => values[c.field] === 0)) return { kind: "skip", reason: "placeholder" };
  const period = periodOf(form, stamp);
  if ("why" in period) return { kind: "skip", reason: "uncertain", why: period.why };
  const checked = form.rowCheck((field) => (values[field] === null ? NaN : (values[field] as number)));
  if (checked !== undefined) return { kind: "skip", reason: "uncertain", why: form.rowCheckText };
  return { kind: "row", row: { period: new Date(period.day).toISOString().slice(0, 10), line, values } };
}
