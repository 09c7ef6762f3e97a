/**
 * `grid.pumped_storage`: how full each pumped-storage scheme's upper reservoir was, in hours of
 * generation left, with the operating limits the portal publishes beside it, hourly or per UTC day
 * (docs/api.md: "Pumped storage"). The levels come from the portal's pumped-storage file and from
 * the data-request export (the same columns); the limits only from the portal's file.
 */
import { type Reading, valueAt } from "../source/reading.ts";
import { fromSourceMeta, HOURS_FIELD, type FieldText } from "./dataset.ts";
import { defineDataset, type HourlyField } from "./dataset-table.ts";
import { COL } from "./source-fields.ts";

const LEVELS = [COL.drakensbergHours, COL.palmietHours, COL.ingulaHours];

/** The reading of an hour holding a reservoir level, else null. */
export function pumpedStorageHour(reading: Reading): Reading | null {
  return LEVELS.some((column) => valueAt(reading, column) !== null) ? reading : null;
}

const hours = (description: string): FieldText => ({
  type: "number",
  unit: "h",
  nullable: true,
  description,
});
const field = (column: number, description: string): HourlyField<Reading> => ({
  ...hours(description),
  value: (reading) => valueAt(reading, column),
});

/** The `grid.pumped_storage` dataset. */
export const pumpedStorage = defineDataset({
  id: "grid.pumped_storage",
  path: "/api/v1/grid/pumped-storage",
  scope: "normalized_data",
  description:
    "Each pumped-storage scheme's stored energy, in hours of generation left (Drakensberg, Palmiet, Ingula), with the reservoir limits the portal publishes, hourly or per UTC day.",
  derived: { "1h": false, "1d": true },
  meta: fromSourceMeta,
  hour: pumpedStorageHour,
  hourly: {
    drakensberg_hours: field(
      COL.drakensbergHours,
      "Drakensberg: hours of generation left in its upper reservoir (`Drakensberg Gen Unit Hours`).",
    ),
    palmiet_hours: field(COL.palmietHours, "Palmiet: hours of generation left (`Palmiet Gen Unit Hours`)."),
    ingula_hours: field(COL.ingulaHours, "Ingula: hours of generation left (`Ingula Gen Unit Hours`)."),
    drakensberg_max_hours: field(
      COL.drakensbergMax,
      "Drakensberg's maximum, in the same hours, as the pumped-storage file publishes it (`Drakensberg Max Hours`); 102 in every file seen, the full reservoir.",
    ),
    palmiet_max_hours: field(
      COL.palmietMax,
      "Palmiet's maximum (`Palmiet Max Hours`); 58.7 in every file seen.",
    ),
    ingula_max_hours: field(COL.ingulaMax, "Ingula's maximum (`Ingula Max Hours`); 67 in every file seen."),
    drakensberg_min_hours: field(
      COL.drakensbergMin,
      "Drakensberg's minimum (`Drakensberg Min Hours`); 12 in every file seen, the level kept in reserve.",
    ),
    palmiet_min_hours: field(
      COL.palmietMin,
      "Palmiet's minimum (`Palmiet Min Hours`); 8 in every file seen.",
    ),
    ingula_min_hours: field(COL.ingulaMin, "Ingula's minimum (`Ingula Min Hours`); 12 in every file seen."),
  },
  daily: {
    avg_drakensberg_hours: {
      ...hours("Mean Drakensberg level over the day's hours."),
      from: { mean: "drakensberg_hours" },
    },
    min_drakensberg_hours: {
      ...hours("Lowest Drakensberg level of the day."),
      from: { min: "drakensberg_hours" },
    },
    max_drakensberg_hours: {
      ...hours("Highest Drakensberg level of the day."),
      from: { max: "drakensberg_hours" },
    },
    avg_palmiet_hours: { ...hours("Mean Palmiet level."), from: { mean: "palmiet_hours" } },
    min_palmiet_hours: { ...hours("Lowest Palmiet level."), from: { min: "palmiet_hours" } },
    max_palmiet_hours: { ...hours("Highest Palmiet level."), from: { max: "palmiet_hours" } },
    avg_ingula_hours: { ...hours("Mean Ingula level."), from: { mean: "ingula_hours" } },
    min_ingula_hours: { ...hours("Lowest Ingula level."), from: { min: "ingula_hours" } },
    max_ingula_hours: { ...hours("Highest Ingula level."), from: { max: "ingula_hours" } },
    drakensberg_max_hours: {
      ...hours("The highest Drakensberg maximum of the day."),
      from: { max: "drakensberg_max_hours" },
    },
    palmiet_max_hours: { ...hours("The highest Palmiet maximum."), from: { max: "palmiet_max_hours" } },
    ingula_max_hours: { ...hours("The highest Ingula maximum."), from: { max: "ingula_max_hours" } },
    drakensberg_min_hours: {
      ...hours("The lowest Drakensberg minimum of the day."),
      from: { min: "drakensberg_min_hours" },
    },
    palmiet_min_hours: { ...hours("The lowest Palmiet minimum."), from: { min: "palmiet_min_hours" } },
    ingula_min_hours: { ...hours("The lowest Ingula minimum."), from: { min: "ingula_min_hours" } },
    hours: { ...HOURS_FIELD, from: { count: true } },
  },
});
