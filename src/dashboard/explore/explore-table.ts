/**
 * The records behind a chart as a table, written as the API's JSON gives them (a number as
 * JavaScript writes it, an empty cell for null, an object's members as `name.member` columns, as
 * the CSV has them), so a reader can check every value and the page's script can show the one
 * under the pointer. Each header cell is the field's label, and carries its name and unit; each
 * row its instant.
 */
import type { DataRecord, FieldDoc } from "../../records/dataset.ts";
import { html, type Html } from "../html.ts";

/** A record's columns, objects flattened. */
export function flatRecord(record: DataRecord): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [name, value] of Object.entries(record)) {
    if (value !== null && typeof value === "object") {
      for (const [member, inner] of Object.entries(value)) out[`${name}.${member}`] = inner;
    } else out[name] = value;
  }
  return out;
}

/** The table of `records`, with each column's unit from `fields`; `instant` gives a row's time. */
export function recordsTable(
  records: readonly DataRecord[],
  fields: readonly FieldDoc[],
  instant: (record: DataRecord) => number,
): Html {
  const rows = records.map(flatRecord);
  const columns = rows.length > 0 ? Object.keys(rows[0]!) : [];
  const fieldOf = (name: string) => {
    const [outer, member] = name.split(".");
    const field = fields.find((f) => f.name === outer);
    return member === undefined ? field : field?.properties?.find((p) => p.name === member);
  };
  const unit = (name: string) => fieldOf(name)?.unit ?? "";
  const label = (name: string) => fieldOf(name)?.label ?? name;
  return html`<table class="records" id="records">
    <caption>
      ${records.length} records, as the API answers them
    </caption>
    <thead>
      <tr>
        ${columns.map((c) => html`<th scope="col" data-field="${c}" data-unit="${unit(c)}" title="${c}">${label(c)}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row, i) =>
          html`<tr data-t="${instant(records[i]!)}">
            ${columns.map((c) => html`<td>${row[c] === null ? "" : String(row[c])}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}
