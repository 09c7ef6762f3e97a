/** How a portal CSV's header lays out its rows: which field is a stamp, a value, or neither. */
import {
  columns,
  fileColumnIndex,
  normalizeColumnName,
  SAMPLE_COLUMN,
  TIMESTAMP_COLUMNS,
} from "./columns.ts";
import { type FieldLayout, splitFields } from "./csv-fields.ts";
import { periodFormOfHeader } from "./period-forms.ts";
import { formOfHeader, type PortalForm } from "./portal-forms.ts";

const EXPORT_QUIRK = "total_uclf_oclf";

/** Refuses the file at a line (1-based), for a reason. */
export type Fail = (line: number, reason: string) => never;

/** Where each field of a row goes. */
export interface Layout extends FieldLayout {
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

/** The layout a header gives, with the live file it names (or `chosen`); refuses a header it cannot read. */
export function readHeader(
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
  const periods = periodFormOfHeader(headerNames);
  if (periods !== undefined) {
    fail(
      1,
      `this is the portal's ${periods.name}, a table of ${periods.grain}s, not of hours: the pull keeps it apart from the readings (docs/data.md: "Weekly and monthly availability")`,
    );
  }
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
      const index = fileColumnIndex(name);
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
