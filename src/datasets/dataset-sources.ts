/**
 * The portal files a dataset is read from, derived from what it reads: for a dataset of stored
 * hours, every live file whose stored columns include a column one of its fields reads (a file's
 * columns that another file is the source of are not its own); for periods and issues, the files
 * they are kept from; for the outlook, the files of the columns its inputs read and the forecast's. The catalog, /healthz's sources, the explorer's notes, the MCP reference and
 * the pull's `data.published` events all name these.
 */
import type { FieldDoc } from "../records/dataset.ts";
import { TIMESTAMP_COLUMNS } from "../source/columns.ts";
import { PORTAL_FORMS, type PortalForm } from "../source/portal-forms.ts";
import { type DatasetDefinition, isHourly } from "./registry.ts";

/** The columns a live file's rows store: its header but the stamp and what another file is the source of. */
export function storedColumns(form: PortalForm): string[] {
  const elsewhere = new Set([...(form.checkOnly ?? []), ...(form.ignore ?? [])]);
  return form.header.filter((name) => !TIMESTAMP_COLUMNS.has(name) && !elsewhere.has(name));
}

/** Every stored column the fields read (an object field's own list covers its members). */
export function columnsRead(fields: readonly FieldDoc[]): Set<string> {
  return new Set(fields.flatMap((field) => field.columns ?? []));
}

/** The portal files `dataset` is read from, in the pull's order of forms. */
export function sourcesOf(dataset: DatasetDefinition): string[] {
  if (dataset.kind === "periods") return dataset.files.map((form) => form.name);
  if (dataset.kind === "outlook") return [...filesStoring(new Set(dataset.reads)), dataset.file];
  if (!isHourly(dataset)) return [dataset.file];
  return filesStoring(columnsRead(dataset.fields["1h"]));
}

// The live files of readings whose stored columns include one of `read`, in the pull's order.
function filesStoring(read: ReadonlySet<string>): string[] {
  return PORTAL_FORMS.filter(
    (form) => form.target === "readings" && storedColumns(form).some((name) => read.has(name)),
  ).map((form) => form.name);
}
