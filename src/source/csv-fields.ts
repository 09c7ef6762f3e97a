/**
 * The fields of one data line, in each form the portal has written (docs/data.md: "Formats"):
 *
 * - `;` delimiter with decimal commas (`16452,935`): a row must have the header's width;
 * - `,` delimiter with `.` decimals and E-notation (`8.3000000000000004E-2`);
 * - `,` delimiter with unquoted decimal commas (`17644,835999999999`), where a value with a
 *   fraction takes two fields and a whole one takes one.
 *
 * In a `,` file a row is read only when it is certain: it has the header's width (no value was
 * split), or exactly one field more per non-blank value (every value was split; a blank is one
 * empty field, and a split never leaves an empty field). The data-request export's one known
 * defect, an unquoted decimal comma in `Total UCLF+OCLF` alone, is certain too: one field more,
 * re-joined there. Any other row is uncertain and is never guessed at.
 */

/** What the header says about the fields of every row. */
export interface FieldLayout {
  readonly delimiter: ";" | ",";
  /** How many fields the header has. */
  readonly width: number;
  /** Header positions of timestamp columns (never split: a stamp holds no comma). */
  readonly stamps: ReadonlySet<number>;
  /** The export's `Total UCLF+OCLF` position, written with an unquoted decimal comma; -1 if none. */
  readonly exportQuirkAt: number;
}

const WHOLE = /^[+-]?\d+$/;
const FRACTION = /^\d+(?:[eE][+-]?\d+)?$/;

/** Splits one line; fields in double quotes may hold the delimiter (real files have none). */
export function splitFields(line: string, delimiter: string): string[] {
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

// The export's split Total UCLF+OCLF joined again, when both parts are digits.
function joinExportQuirk(fields: readonly string[], at: number): string[] | undefined {
  const [whole, fraction] = [fields[at]!.trim(), fields[at + 1]!.trim()];
  if (!WHOLE.test(whole) || !FRACTION.test(fraction)) return undefined;
  return [...fields.slice(0, at), `${whole}.${fraction}`, ...fields.slice(at + 2)];
}

// Every non-blank value split in two, joined again; undefined when a pair is not a number.
function joinEverySplit(fields: readonly string[], layout: FieldLayout): string[] | undefined {
  const out: string[] = [];
  let f = 0;
  for (let column = 0; column < layout.width; column++) {
    const field = fields[f]!.trim();
    if (layout.stamps.has(column) || field === "") {
      out.push(field);
      f++;
      continue;
    }
    const fraction = fields[f + 1]?.trim() ?? "";
    if (!WHOLE.test(field) || !FRACTION.test(fraction)) return undefined;
    out.push(`${field}.${fraction}`);
    f += 2;
  }
  return out;
}

/**
 * The row's fields, one per header column, with decimal points; `undefined` when the row cannot
 * be read with certainty; throws a RangeError for a `;` row of the wrong width (a damaged file).
 */
export function certainFields(line: string, layout: FieldLayout): string[] | undefined {
  const fields = splitFields(line, layout.delimiter);
  if (layout.delimiter === ";") {
    if (fields.length !== layout.width) {
      throw new RangeError(`expected ${layout.width} fields as in the header, found ${fields.length}`);
    }
    return fields.map((field) => field.replace(",", "."));
  }
  // A quoted field may hold a decimal comma.
  if (fields.length === layout.width) return fields.map((field) => field.replace(",", "."));
  const extra = fields.length - layout.width;
  const blanks = fields.filter((field) => field.trim() === "").length;
  const values = layout.width - layout.stamps.size - blanks;
  const quirk =
    extra === 1 && layout.exportQuirkAt >= 0 ? joinExportQuirk(fields, layout.exportQuirkAt) : undefined;
  const split = extra > 0 && extra === values ? joinEverySplit(fields, layout) : undefined;
  // Where both readings apply, the one non-blank value is the export's split field: they agree.
  return quirk ?? split;
}
