/** `generation.mix`: generation by fuel type, hourly as published or averaged per UTC day. */
import { type Reading, valueAt } from "../source/reading.ts";
import { HOURS_FIELD, mw, type FieldText } from "./dataset.ts";
import { type DailyField, defineDataset, type HourlyField } from "./dataset-table.ts";
import { MIX_FIELDS } from "./source-fields.ts";

const FUELS = MIX_FIELDS;

/** A generation-mix field name. */
export type Fuel = (typeof FUELS)[number][0];

/** The reading of an hour holding at least one mix field, else null. */
export function mixHour(reading: Reading): Reading | null {
  return FUELS.some(([, column]) => valueAt(reading, column) !== null) ? reading : null;
}

/** The generation mix of one hour, unrounded, or null when the reading holds none of its fields. */
export function generationMixHour(reading: Reading): Record<Fuel, number | null> | null {
  if (mixHour(reading) === null) return null;
  return Object.fromEntries(FUELS.map(([field, column]) => [field, valueAt(reading, column)])) as Record<
    Fuel,
    number | null
  >;
}

const hourly = Object.fromEntries(
  FUELS.map(([field, column, meaning]) => [
    field,
    { ...mw(meaning), value: (reading: Reading) => valueAt(reading, column) },
  ]),
) as Record<Fuel, HourlyField<Reading>>;

const daily = Object.fromEntries(
  FUELS.map(([field, , meaning]) => [
    `avg_${field}`,
    { ...mw(`Mean over the day's hours. ${meaning}`), from: { mean: field } },
  ]),
) as Record<`avg_${Fuel}`, DailyField<Fuel>>;

const HOURS: FieldText & { from: { count: true } } = { ...HOURS_FIELD, from: { count: true } };

/** The `generation.mix` dataset. */
export const generationMix = defineDataset({
  id: "generation.mix",
  path: "/api/v1/generation/mix",
  scope: "normalized_data",
  description: "Generation by fuel type, as published (hourly) or averaged per UTC day.",
  derived: { "1h": false, "1d": true },
  meta: (interval) => (interval === "1h" ? {} : { derivation_method: "aggregation_from_1h" }),
  hour: mixHour,
  hourly,
  daily: { hours: HOURS, ...daily },
});
