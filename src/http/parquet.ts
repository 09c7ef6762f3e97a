/**
 * Records as an Apache Parquet file (docs/api.md: "Parquet"), written by hyparquet-writer row group
 * by row group, so a whole history streams with memory bounded by one row group. Columns are typed
 * from the fields: `ts` a UTC timestamp (milliseconds, adjusted to UTC), `date` a date, numbers
 * float64 (counts int32), labels strings; every value column may be null. An object field (grid
 * stress `components`) becomes `components.<name>` columns, as in CSV. The envelope's `meta` is the
 * file's key-value metadata under the key `meta`, as JSON text.
 */
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import type { DataRecord, FieldDoc } from "../records/dataset.ts";
import { DAY_MS } from "../time.ts";
import { VERSION } from "../version.ts";

/** The rows gathered before a row group is written: a year of hours. */
export const ROW_GROUP_ROWS = 8784;

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]["schema"][number];

interface Column {
  readonly element: SchemaElement;
  readonly get: (record: DataRecord) => unknown;
}

// The instant of a stamp (`ts`, with its offset) in ms, or the days since 1970-01-01 of a `date`.
const instant = (value: unknown) => (typeof value === "string" ? Date.parse(value) : null);
const days = (value: unknown) => (typeof value === "string" ? Date.parse(value) / DAY_MS : null);

function column(field: FieldDoc, name: string, get: (r: DataRecord) => unknown): Column {
  if (field.format === "date-time") {
    const element: SchemaElement = {
      name,
      type: "INT64",
      repetition_type: "REQUIRED",
      converted_type: "TIMESTAMP_MILLIS",
      logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" },
    };
    return { element, get: (r) => instant(get(r)) };
  }
  if (field.format === "date") {
    return {
      element: { name, type: "INT32", repetition_type: "REQUIRED", converted_type: "DATE" },
      get: (r) => days(get(r)),
    };
  }
  if (field.type === "string") {
    return {
      element: { name, type: "BYTE_ARRAY", repetition_type: "OPTIONAL", converted_type: "UTF8" },
      get,
    };
  }
  const type = field.type === "integer" ? "INT32" : "DOUBLE";
  return { element: { name, type, repetition_type: "OPTIONAL" }, get };
}

/** The columns of `fields`, with the optional ones `include` picks, as CSV has them. */
export function parquetColumns(
  fields: readonly FieldDoc[],
  include: (field: FieldDoc) => boolean = () => true,
): Column[] {
  const columns: Column[] = [];
  for (const field of fields) {
    if (field.optional && !include(field)) continue;
    if (field.type === "object" && field.properties) {
      for (const member of field.properties) {
        const of = (r: DataRecord) => (r[field.name] as Record<string, unknown> | undefined)?.[member.name];
        columns.push(column(member, `${field.name}.${member.name}`, of));
      }
    } else {
      columns.push(column(field, field.name, (r) => r[field.name]));
    }
  }
  return columns;
}

// A ByteWriter that hands its bytes on after each row group and at the end, keeping none.
class HandingWriter extends ByteWriter {
  constructor(private readonly out: (bytes: Buffer) => void | Promise<void>) {
    super(1 << 16);
  }
  flush(): void | Promise<void> {
    const bytes = Buffer.from(this.buffer.slice(0, this.index));
    this.index = 0;
    return this.out(bytes);
  }
  // ParquetWriter awaits what `finish` returns (its Writer type allows a promise); ByteWriter's is void.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  override finish(): void | Promise<void> {
    return this.flush();
  }
}

/**
 * Writes records as one Parquet file to `out`, piece by piece: `add` gathers records and writes
 * a row group when `ROW_GROUP_ROWS` are gathered; `end` writes the rest and the footer.
 */
export class ParquetEncoder {
  readonly #columns: Column[];
  readonly #writer: ParquetWriter;
  #rows: DataRecord[] = [];

  constructor(columns: Column[], meta: string, out: (bytes: Buffer) => void | Promise<void>) {
    this.#columns = columns;
    this.#writer = new ParquetWriter({
      writer: new HandingWriter(out),
      schema: [{ name: "root", num_children: columns.length }, ...columns.map((c) => c.element)],
      kvMetadata: [{ key: "meta", value: meta }],
      createdBy: `grid-data-service ${VERSION} (hyparquet-writer)`,
    });
  }

  /** Gathers `records`; writes a row group (and hands its bytes on) once enough are gathered. */
  async add(records: readonly DataRecord[]): Promise<void> {
    for (const record of records) this.#rows.push(record);
    if (this.#rows.length >= ROW_GROUP_ROWS) await this.#group();
  }

  /** Writes what is gathered and the footer. */
  async end(): Promise<void> {
    if (this.#rows.length > 0) await this.#group();
    await this.#writer.finish();
  }

  async #group(): Promise<void> {
    const rows = this.#rows;
    this.#rows = [];
    const columnData = this.#columns.map((c) => ({ name: c.element.name, data: rows.map(c.get) }));
    await this.#writer.write({ columnData, rowGroupSize: rows.length });
  }
}
