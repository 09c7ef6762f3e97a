/**
 * A PowerBI `querydata` answer, decoded (docs/data.md: "PowerBI reports"). A public report answers
 * a visual's query with a compressed data shape (`results[0].result.data.dsr`): row lists `DM0`,
 * `DM1`… under `DS[0].PH`, each row's values in `C` in the order its list's schema (`S`, given on
 * a list's first row and kept) names them, a bitmask `R` of the values repeated from the list's row
 * before, a bitmask `Ø` of nulls, or the values named (`"G0": …`) instead of `C`; rows nested under
 * a row (`M`), a matrix's cells (`X`); text coded through `ValueDicts` (or plain, past a
 * dictionary's cap); datetimes as epoch ms. The answer's `descriptor` says which column (`G0`,
 * `M0`…) is which of the query's properties.
 *
 * Nothing is guessed: a row whose values do not fill its schema exactly, a repeat with nothing
 * before it, a code outside its dictionary, a datetime that is not a number, is refused, and the
 * whole answer with it (a `PowerBiAnswerError` saying where). Plain code on plain JSON: no network.
 */

/** A value as the answer gives it. */
export type CellValue = string | number | boolean | null;

/** One column of the query, as the answer's descriptor names it. */
export interface AnswerColumn {
  /** `G0`, `M0`…: how the rows name it. */
  readonly key: string;
  /** The query's name of it (`Table.Column`, `Sum(Table.Column)`). */
  readonly name: string;
  /** 1: a grouping (a category, a series); 2: a measure. */
  readonly kind: number;
}

/** One row of a data shape. */
export interface AnswerRow {
  /** Its list: `DM0`, `DM1`… */
  readonly member: string;
  /** Its values by column key, with those of the rows it is nested in. */
  readonly values: Readonly<Record<string, CellValue>>;
  /** A matrix row's cells, one per column of the secondary axis, each by column key. */
  readonly cells?: readonly Readonly<Record<string, CellValue>>[];
}

/** An answer, decoded. */
export interface DecodedAnswer {
  readonly columns: readonly AnswerColumn[];
  /** Every row, in the answer's order. */
  readonly rows: readonly AnswerRow[];
  /** The secondary axis's rows (a matrix's columns), if any. */
  readonly secondary: readonly AnswerRow[];
  /** The shape's own values (totals, counts), if any. */
  readonly totals?: Readonly<Record<string, CellValue>>;
  /** False when the window was cut: ask again with `restartTokens` for the rest. */
  readonly complete: boolean;
  readonly restartTokens?: readonly (readonly unknown[])[];
  /** What the service said of the shape (a limit met), if anything. */
  readonly message?: string;
}

/** An answer that cannot be read with certainty, and where. */
export class PowerBiAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PowerBiAnswerError";
  }
}

/** The datetime type: epoch milliseconds. */
export const DATETIME_TYPE = 7;

interface SchemaColumn {
  readonly N: string;
  readonly T?: number;
  readonly DN?: string;
}

// What a row list carries from one row to the next: its schema and its last values.
interface ListState {
  schema?: readonly SchemaColumn[];
  previous?: readonly unknown[];
}

interface Decoding {
  readonly dictionaries: Readonly<Record<string, readonly unknown[]>>;
  readonly lists: Map<string, ListState>;
  rows: AnswerRow[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function fail(where: string, what: string): never {
  throw new PowerBiAnswerError(`${where}: ${what}`);
}

function bitsOf(row: Record<string, unknown>, key: string, width: number, where: string): number {
  const value = row[key] ?? 0;
  if (!Number.isInteger(value) || (value as number) < 0) fail(where, `${key} is not a bitmask`);
  if ((value as number) >= 2 ** width) fail(where, `${key} names a column past the schema's ${width}`);
  return value as number;
}

function schemaOf(value: unknown, where: string): SchemaColumn[] {
  if (!Array.isArray(value) || value.length === 0) fail(where, "its schema S is not a list of columns");
  return value.map((column, i) => {
    if (!isObject(column) || typeof column.N !== "string") fail(where, `schema column ${i} has no name N`);
    return column as unknown as SchemaColumn;
  });
}

// A value as its column reads: a dictionary's code looked up, a datetime checked.
function valueOf(raw: unknown, column: SchemaColumn, decoding: Decoding, where: string): CellValue {
  if (raw === null) return null;
  // A coded column gives codes into its dictionary, and the text itself past the dictionary's size
  // (the service caps a dictionary; the rest arrives plain).
  if (column.DN !== undefined && typeof raw !== "string") {
    const dictionary = decoding.dictionaries[column.DN];
    if (dictionary === undefined)
      fail(where, `${column.N} names the dictionary ${column.DN}, which is not there`);
    if (!Number.isInteger(raw) || (raw as number) < 0 || (raw as number) >= dictionary.length)
      fail(
        where,
        `${column.N} has the code ${JSON.stringify(raw)}, outside ${column.DN}'s ${dictionary.length}`,
      );
    return dictionary[raw as number] as CellValue;
  }
  if (column.T === DATETIME_TYPE && (typeof raw !== "number" || !Number.isFinite(raw)))
    fail(where, `${column.N} is a datetime, and ${JSON.stringify(raw)} is not epoch milliseconds`);
  if (typeof raw !== "string" && typeof raw !== "number" && typeof raw !== "boolean")
    fail(where, `${column.N} holds ${JSON.stringify(raw)}, not a value`);
  return raw;
}

// The row's values in schema order, raw (codes not looked up): C with R and Ø, or named.
function rawValues(row: Record<string, unknown>, state: ListState, where: string): unknown[] {
  const schema = state.schema!;
  const width = schema.length;
  const repeated = bitsOf(row, "R", width, where);
  const nulls = bitsOf(row, "Ø", width, where);
  if ((repeated & nulls) !== 0) fail(where, "R and Ø mark the same column");
  if (repeated !== 0 && state.previous === undefined) fail(where, "R repeats a row before the first");
  const given = row.C as unknown[] | undefined;
  if (given !== undefined && !Array.isArray(given)) fail(where, "C is not a list");
  let next = 0;
  const values = schema.map((column, i): unknown => {
    if ((repeated & (1 << i)) !== 0) return state.previous![i];
    if ((nulls & (1 << i)) !== 0) return null;
    if (given !== undefined) return given[next++];
    if (!(column.N in row)) fail(where, `${column.N} has no value, and neither R nor Ø says why`);
    return row[column.N];
  });
  if (given !== undefined && next !== given.length)
    fail(where, `C holds ${given.length} values where the schema, R and Ø leave ${next}`);
  return values;
}

// One row of a list (or one cell of a matrix row): its values, decoded, by column key.
function decodeRow(
  row: unknown,
  state: ListState,
  decoding: Decoding,
  where: string,
): Record<string, CellValue> {
  if (!isObject(row)) fail(where, "is not an object");
  if (row.S !== undefined) state.schema = schemaOf(row.S, where);
  if (state.schema === undefined) fail(where, "has no schema S, and none came before it");
  const raw = rawValues(row, state, where);
  state.previous = raw;
  const values: Record<string, CellValue> = {};
  state.schema.forEach((column, i) => (values[column.N] = valueOf(raw[i], column, decoding, where)));
  return values;
}

function decodeList(
  member: string,
  rows: unknown,
  inherited: Readonly<Record<string, CellValue>>,
  decoding: Decoding,
): void {
  if (!Array.isArray(rows)) fail(member, "is not a list of rows");
  let state = decoding.lists.get(member);
  if (state === undefined) decoding.lists.set(member, (state = {}));
  rows.forEach((row, i) => {
    const where = `${member} row ${i}`;
    const own = decodeRow(row, state, decoding, where);
    const values = { ...inherited, ...own };
    const { X: matrix, M: children } = row as Record<string, unknown>;
    let cells: Record<string, CellValue>[] | undefined;
    if (matrix !== undefined) {
      if (!Array.isArray(matrix)) fail(where, "X is not a list of cells");
      // A cell's R repeats the cell before it, as the cells are read one after another.
      const cellState = decoding.lists.get(`${member}.X`) ?? {};
      decoding.lists.set(`${member}.X`, cellState);
      cells = matrix.map((cell, j) => decodeRow(cell, cellState, decoding, `${where} cell ${j}`));
    }
    decoding.rows.push({ member, values, ...(cells === undefined ? {} : { cells }) });
    if (children === undefined) return;
    if (!Array.isArray(children)) fail(where, "M is not a list");
    for (const child of children) {
      if (!isObject(child)) fail(where, "M holds a child that is not an object");
      for (const [name, list] of Object.entries(child)) decodeList(name, list, values, decoding);
    }
  });
}

// The answer's data, or why it has none (an error answer, HTML, another shape).
function dataOf(answer: unknown): Record<string, unknown> {
  if (!isObject(answer)) fail("the answer", "is not a JSON object");
  if (answer.error !== undefined)
    fail("the answer", `is an error: ${JSON.stringify(answer.error).slice(0, 300)}`);
  const [first] = Array.isArray(answer.results) ? (answer.results as unknown[]) : [];
  const data = isObject(first) && isObject(first.result) ? first.result.data : undefined;
  if (!isObject(data)) fail("the answer", "has no results[0].result.data");
  const dsr = data.dsr;
  if (isObject(dsr) && Array.isArray(dsr.DataShapes)) {
    const error = JSON.stringify(dsr.DataShapes[0] ?? {}).slice(0, 300);
    fail("the answer", `is the query's error: ${error}`);
  }
  if (!isObject(dsr) || !Array.isArray(dsr.DS) || dsr.DS.length === 0)
    fail("the answer", "has no data shape dsr.DS");
  return data;
}

function columnsOf(data: Record<string, unknown>): AnswerColumn[] {
  const select = isObject(data.descriptor) ? data.descriptor.Select : undefined;
  if (!Array.isArray(select)) fail("the answer", "has no descriptor naming its columns");
  return select.map((entry, i) => {
    if (!isObject(entry) || typeof entry.Value !== "string" || typeof entry.Name !== "string")
      fail("the descriptor", `column ${i} has no Value and Name`);
    return { key: entry.Value, name: entry.Name, kind: Number(entry.Kind) };
  });
}

/** Decodes a `querydata` answer (its text, or parsed); throws a PowerBiAnswerError saying where. */
export function decodeAnswer(answer: unknown): DecodedAnswer {
  let parsed = answer;
  if (typeof answer === "string") {
    try {
      parsed = JSON.parse(answer);
    } catch {
      const start = answer.trimStart().slice(0, 40);
      fail("the answer", `is not JSON (it begins ${JSON.stringify(start)})`);
    }
  }
  const data = dataOf(parsed);
  const shape = ((data.dsr as Record<string, unknown>).DS as unknown[])[0];
  if (!isObject(shape) || !Array.isArray(shape.PH)) fail("DS0", "has no PH");
  const dictionaries = shape.ValueDicts ?? {};
  if (!isObject(dictionaries) || !Object.values(dictionaries).every(Array.isArray))
    fail("DS0", "ValueDicts is not a set of lists");
  const decoding: Decoding = {
    dictionaries: dictionaries as Record<string, unknown[]>,
    lists: new Map(),
    rows: [],
  };
  for (const part of shape.PH) {
    if (!isObject(part)) fail("DS0", "PH holds a part that is not an object");
    for (const [member, rows] of Object.entries(part)) decodeList(member, rows, {}, decoding);
  }
  const primary = decoding.rows;
  decoding.rows = [];
  for (const part of Array.isArray(shape.SH) ? shape.SH : []) {
    if (!isObject(part)) fail("DS0", "SH holds a part that is not an object");
    for (const [member, rows] of Object.entries(part)) decodeList(member, rows, {}, decoding);
  }
  const totals = shape.S === undefined ? undefined : decodeRow(shape, {}, decoding, "DS0");
  const tokens = shape.RT;
  if (tokens !== undefined && !(Array.isArray(tokens) && tokens.every(Array.isArray)))
    fail("DS0", "its restart tokens RT are not lists");
  return {
    columns: columnsOf(data),
    rows: primary,
    secondary: decoding.rows,
    ...(totals === undefined ? {} : { totals }),
    complete: shape.IC !== false,
    ...(tokens === undefined ? {} : { restartTokens: tokens as unknown[][] }),
    ...(shape.Msg === undefined ? {} : { message: JSON.stringify(shape.Msg) }),
  };
}
