/**
 * What the weekly and monthly availability (`availability-weekly.ts`, `availability-monthly.ts`)
 * share: Eskom's energy availability factor and capability loss factors as published, each a
 * percentage of the fleet's capacity over the period, and how they stand to the hourly
 * `grid.availability`. Every value is the file's own (not rounded), for its period as the newest
 * download up to `as_of` gave it; they are never computed from the hourly figures, nor put in them.
 */
import { type FieldDoc, type FieldText, PERCENT } from "../records/dataset.ts";
import { type PeriodForm, periodForm } from "../source/period-forms.ts";
import { PERIODS_STATUS_META, type PeriodDataset } from "./periods-reader.ts";

/** A field of a period file. */
export const field = (name: string, text: FieldText): FieldDoc => ({ name, ...text });

// Each factor: its field, its label, its column after the file's prefix, and its meaning.
const FACTORS = [
  [
    "eaf_pct",
    "Energy availability factor",
    "EAF",
    "Energy availability factor: the share of the fleet's capacity that was available",
  ],
  [
    "pclf_pct",
    "Planned loss factor",
    "PCLF",
    "Planned capability loss factor: the share out for maintenance",
  ],
  [
    "uclf_pct",
    "Unplanned loss factor",
    "UCLF",
    "Unplanned capability loss factor: the share lost to breakdowns",
  ],
  [
    "oclf_pct",
    "Other loss factor",
    "OCLF",
    "Other capability loss factor: the share lost to causes outside Eskom's control",
  ],
] as const;

/** The four factors of a breakdown file whose columns carry `prefix` ("Weekly "). */
export function factorFields(file: string, prefix: string): FieldDoc[] {
  return FACTORS.map(([name, label, column, meaning], i) =>
    field(name, {
      label,
      ...PERCENT,
      minimum: 0,
      maximum: 100,
      description: `${meaning} (\`${prefix}${column}\`${i === 0 ? `, ${file}` : ""}).`,
    }),
  );
}

/** How the figures stand to the hourly `grid.availability`, for the reference. */
export const RELATION =
  "The hourly `grid.availability` gives outages in MW from the data-request export, and its `energy_availability_factor_pct` is computed by this service from them; the figures here are Eskom's own percentages over the period. They measure the same fleet, but are published apart and are never mixed in one field.";

/** A dataset of published periods read from `files`, as published, taking `tz` and `columns`. */
export function availabilityPeriods(
  own: Pick<PeriodDataset, "id" | "title" | "path" | "description" | "reference" | "interval">,
  files: readonly string[],
  fields: readonly FieldDoc[],
): PeriodDataset {
  const forms: PeriodForm[] = files.map((name) => periodForm(name));
  return {
    ...own,
    kind: "periods",
    files: forms,
    scope: "normalized_data",
    intervals: [own.interval],
    takes: ["tz", "columns"],
    declines: "its values are Eskom's own, one per period as published",
    derived: { "1h": false, "1d": false },
    meta: () => ({ derivation_method: "as_published" }),
    statusMeta: PERIODS_STATUS_META,
    fields: { "1h": [], "1d": fields },
    chart: { kind: "lines" },
  };
}
