/** `generation.mix`: generation by fuel type, hourly as published or averaged per UTC day. */
import { type Reading, valueAt } from "../source/reading.ts";
import { HOURS_FIELD, MW, type FieldText } from "../records/dataset.ts";
import { type DailyField, defineDataset, type HourlyField } from "../records/dataset-table.ts";
import { MIX_FIELDS, storedMw } from "../records/source-fields.ts";

const FUELS = MIX_FIELDS;

/** A generation-mix field name. */
export type Fuel = (typeof FUELS)[number][0];

/** The reading of an hour holding at least one mix field, else null. */
export function mixHour(reading: Reading): Reading | null {
  return FUELS.some(([, column]) => valueAt(reading, column) !== null) ? reading : null;
}

const hourly = Object.fromEntries(
  FUELS.map(([field, column, label, meaning]): [Fuel, HourlyField<Reading>] => [
    field,
    storedMw(label, meaning, column),
  ]),
) as Record<Fuel, HourlyField<Reading>>;

const daily = Object.fromEntries(
  FUELS.map(([field, , , meaning]) => [
    `avg_${field}`,
    { ...MW, description: `Mean over the day's hours. ${meaning}`, from: { mean: field } },
  ]),
) as Record<`avg_${Fuel}`, DailyField<Fuel>>;

const HOURS: FieldText & { from: { count: true } } = { ...HOURS_FIELD, from: { count: true } };

/** The `generation.mix` dataset. */
export const generationMix = defineDataset({
  id: "generation.mix",
  title: "Generation mix",
  kind: "readings",
  path: "/api/v1/generation/mix",
  scope: "normalized_data",
  description: "Generation by fuel type, as published (hourly) or averaged per UTC day.",
  derived: { "1h": false, "1d": true },
  meta: (interval) => (interval === "1h" ? {} : { derivation_method: "aggregation_from_1h" }),
  hour: mixHour,
  hourly,
  daily: { hours: HOURS, ...daily },
  // Baseload at the bottom, then what is dispatched, then the renewables.
  chart: {
    kind: "stacked",
    order: [
      "nuclear_mw",
      "thermal_mw",
      "utility_gas_mw",
      "utility_ocgt_mw",
      "hydro_water_mw",
      "pumped_water_gen_mw",
      "wind_mw",
      "pv_mw",
      "csp_mw",
      "other_re_mw",
    ],
  },
});
