/**
 * Reads one Eskom Data Portal CSV file in either real format, detected from its content:
 *
 * - data-request exports (`ESK####.csv`): `,` delimiter, `.` decimals, 12-hour stamps, and the
 *   unquoted decimal comma in `Total UCLF+OCLF` that gives most rows one field too many;
 * - live portal downloads: `;` delimiter, `,` decimals, CRLF, 24-hour stamps, unsorted rows,
 *   blank rows for unpublished hours and all-zero placeholder rows.
 *
 * A file that carries the `SAMPLE_COLUMN` is the project's own generated sample, and says so.
 *
 * Columns are matched by header name, never by position. Any defect refuses the whole file with
 * a `PortalCsvError` naming the file and the line, so that nothing of a bad file is stored.
 */
import { columnIndex, normalizeColumnName, SAMPLE_COLUMN, TIMESTAMP_COLUMNS } from "./columns.ts";
import { parseSastStamp } from "./sast-stamp.ts";

/** Which of the two portal layouts a file uses. */
export type PortalFormat = "export" | "live";

/** One source row: its hour (UTC ms) and a value per file column, NaN where blank. */
export interface PortalRow {
  readonly line: number;
  readonly hour: number;
  readonly values: Float64Array;
}

/** Why rows were passed over, and how many. */
export type SkipReason = "blank" | "placeholder";

/** A parsed file: its catalog columns (indexes into a reading) and its rows with values. */
export interface PortalFile {
  readonly name: string;
  readonly format: PortalFormat;
  readonly columns: readonly number[];
  readonly columnNames: readonly string[];
  readonly rows: readonly PortalRow[];
  readonly rowsRead: number;
  readonly skipped: Readonly<Record<SkipReason, number>>;
  /** Whether the file is generated sample data (it carries the sample column), not the utility's. */
  readonly sample: boolean;
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
const UCLF_OCLF = "total_uclf_oclf";
const EXPORT_STAMP = "Date Time Hour Beginning";

type Fail = (line: number, reason: string) => never;

/** What the header says about every row: where the stamp is, which column each field fills. */
interface Layout {
  readonly delimiter: string;
  readonly decimalComma: boolean;
  readonly headerNames: readonly string[];
  readonly stampAt: number;
  /** The generated sample's marker column, whose values are not readings; -1 if none. */
  readonly sampleAt: number;
  readonly columns: number[];
  readonly columnNames: string[];
  readonly format: PortalFormat;
  /** The export's Total UCLF+OCLF field, written with an unquoted decimal comma; -1 if none. */
  readonly quirkAt: number;
}

function readHeader(header: string, fail: Fail): Layout {
  const delimiter = header.includes(";") ? ";" : ",";
  const decimalComma = delimiter === ";";
  const headerNames = splitFields(header, delimiter);
  if (headerNames.length < 2) fail(1, "the header names no columns; expected a timestamp and readings");
  let stampAt = -1;
  let sampleAt = -1;
  const columns: number[] = [];
  const columnNames: string[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of headerNames.entries()) {
    const normalized = normalizeColumnName(raw);
    if (seen.has(normalized)) fail(1, `column "${raw}" appears twice`);
    seen.add(normalized);
    if (TIMESTAMP_COLUMNS.has(normalized)) {
      stampAt = i;
      continue;
    }
    if (normalized === SAMPLE_COLUMN) {
      sampleAt = i;
      continue;
    }
    const index = columnIndex(normalized);
    if (index < 0) fail(1, `unknown column "${raw}"; this is not a known Eskom Data Portal header`);
    columns.push(index);
    columnNames.push(normalized);
  }
  if (stampAt < 0) fail(1, `no timestamp column ("Date Time Hour Beginning" or "DateTimeKey")`);
  // Exports name the stamp "Date Time Hour Beginning"; live downloads use `;`, or (a later
  // variant) `,` with underscore names such as "Date_Time_Hour_Beginning" or "DateTimeKey".
  const format: PortalFormat =
    decimalComma || headerNames[stampAt]!.trim() !== EXPORT_STAMP ? "live" : "export";
  const quirkAt = decimalComma ? -1 : headerNames.findIndex((h) => normalizeColumnName(h) === UCLF_OCLF);
  return { delimiter, decimalComma, headerNames, stampAt, sampleAt, columns, columnNames, format, quirkAt };
}

// One data line's fields, the export's split decimal-comma field joined again.
function rowFields(line: string, lineNo: number, layout: Layout, fail: Fail): string[] {
  const width = layout.headerNames.length;
  const { quirkAt } = layout;
  let fields = splitFields(line, layout.delimiter);
  if (fields.length === width + 1 && quirkAt >= 0) {
    fields = [
      ...fields.slice(0, quirkAt),
      `${fields[quirkAt]}.${fields[quirkAt + 1]}`,
      ...fields.slice(quirkAt + 2),
    ];
  }
  if (fields.length !== width)
    fail(lineNo, `expected ${width} fields as in the header, found ${fields.length}`);
  return fields;
}

// The values of one row (NaN where empty), and how many are present and non-zero.
function rowValues(fields: readonly string[], lineNo: number, layout: Layout, fail: Fail) {
  const values = new Float64Array(layout.columns.length);
  let present = 0;
  let nonZero = 0;
  let v = 0;
  for (let f = 0; f < fields.length; f++) {
    if (f === layout.stampAt || f === layout.sampleAt) continue;
    const raw = fields[f]!.trim();
    if (raw === "") {
      values[v++] = NaN;
      continue;
    }
    const text = layout.decimalComma ? raw.replace(",", ".") : raw;
    if (!NUMBER.test(text))
      fail(lineNo, `column "${layout.headerNames[f]!.trim()}" holds "${raw}", which is not a number`);
    const value = Number(text);
    values[v++] = value;
    present++;
    if (value !== 0) nonZero++;
  }
  return { values, present, nonZero };
}

/** Parses the text of a portal CSV file; `name` is used in error messages only. */
export function parsePortalCsv(text: string, name: string): PortalFile {
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
  const layout = readHeader(lines[0]!, fail);
  const rows: PortalRow[] = [];
  const skipped: Record<SkipReason, number> = { blank: 0, placeholder: 0 };
  let rowsRead = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    const lineNo = i + 1;
    rowsRead++;
    const fields = rowFields(line, lineNo, layout, fail);
    let hour = 0;
    try {
      hour = parseSastStamp(fields[layout.stampAt]!);
    } catch (error) {
      fail(lineNo, (error as Error).message);
    }
    const { values, present, nonZero } = rowValues(fields, lineNo, layout, fail);
    if (present === 0) {
      skipped.blank++;
      continue;
    }
    // The live renewables download writes unpublished hours as rows of zeros.
    if (layout.format === "live" && nonZero === 0) {
      skipped.placeholder++;
      continue;
    }
    rows.push({ line: lineNo, hour, values });
  }
  const { format, columns, columnNames } = layout;
  return { name, format, columns, columnNames, rows, rowsRead, skipped, sample: layout.sampleAt >= 0 };
}

// Splits one line; fields in double quotes may hold the delimiter (real files have none).
function splitFields(line: string, delimiter: string): string[] {
  if (!line.includes('"')) return line.split(delimiter);
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) {
      fields.push(field);
      field = "";
    } else field += c;
  }
  fields.push(field);
  return fields;
}
