/**
 * Records as RFC 4180 CSV: a header row, the time field first, one column per field (an object
 * field such as grid stress `components` becomes `components.<name>` columns), empty cells for
 * nulls, CRLF line ends.
 */
import type { DataRecord, FieldDoc } from "../records/dataset.ts";

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text =
    typeof value === "string"
      ? value
      : typeof value === "number" || typeof value === "boolean"
        ? String(value)
        : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV text of `records`, with columns from `fields`; `include` picks the optional fields. */
export function recordsToCsv(
  records: readonly DataRecord[],
  fields: readonly FieldDoc[],
  include: (field: FieldDoc) => boolean = () => true,
): string {
  const columns: { header: string; get: (r: DataRecord) => unknown }[] = [];
  for (const field of fields) {
    if (field.optional && !include(field)) continue;
    if (field.type === "object" && field.properties) {
      for (const member of field.properties) {
        columns.push({
          header: `${field.name}.${member.name}`,
          get: (r) => (r[field.name] as Record<string, unknown> | undefined)?.[member.name],
        });
      }
    } else {
      columns.push({ header: field.name, get: (r) => r[field.name] });
    }
  }
  let out = columns.map((c) => cell(c.header)).join(",") + "\r\n";
  for (const record of records) out += columns.map((c) => cell(c.get(record))).join(",") + "\r\n";
  return out;
}
