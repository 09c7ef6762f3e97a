/**
 * `grid.pumped_storage`: how full each pumped-storage scheme's upper reservoir was, in hours of
 * generation left, with the operating limits the portal publishes beside it, hourly or per UTC day
 * (docs/api.md: "Pumped storage"). The levels come from the portal's pumped-storage file and from
 * the data-request export (the same columns); the limits only from the portal's file.
 */
import { type Reading, valueAt } from "../source/reading.ts";
import { fromSourceMeta, HOURS_FIELD } from "../records/dataset.ts";
import { type DailyField, defineDataset, type HourlyField } from "../records/dataset-table.ts";
import { COL, namesOf } from "../records/source-fields.ts";

const LEVELS = [COL.drakensbergHours, COL.palmietHours, COL.ingulaHours];

/** The reading of an hour holding a reservoir level, else null. */
export function pumpedStorageHour(reading: Reading): Reading | null {
  return LEVELS.some((column) => valueAt(reading, column) !== null) ? reading : null;
}

const HOURS = { type: "number", unit: "h", nullable: true } as const;
const field = (column: number, label: string, description: string): HourlyField<Reading> => ({
  label,
  ...HOURS,
  description,
  columns: namesOf(column),
  value: (reading) => valueAt(reading, column),
});

const SCHEMES = ["drakensberg", "palmiet", "ingula"] as const;
const NAMES = { drakensberg: "Drakensberg", palmiet: "Palmiet", ingula: "Ingula" } as const;

type Daily = [string, DailyField<string>];
const daily = (
  name: string,
  from: DailyField<string>["from"],
  description: string,
  label?: string,
): Daily => [name, { ...HOURS, ...(label === undefined ? {} : { label }), description, from }];

// Each scheme's daily level (its mean, lowest and highest), then the limits (the highest maximum,
// the lowest minimum), in the order they are served.
const DAILY: Daily[] = [
  ...SCHEMES.flatMap((s) => [
    daily(`avg_${s}_hours`, { mean: `${s}_hours` }, `Mean ${NAMES[s]} level over the day's hours.`),
    daily(`min_${s}_hours`, { min: `${s}_hours` }, `Lowest ${NAMES[s]} level of the day.`),
    daily(`max_${s}_hours`, { max: `${s}_hours` }, `Highest ${NAMES[s]} level of the day.`),
  ]),
  ...SCHEMES.map((s) =>
    daily(
      `${s}_max_hours`,
      { max: `${s}_max_hours` },
      `The highest ${NAMES[s]} maximum of the day.`,
      `${NAMES[s]}, maximum`,
    ),
  ),
  ...SCHEMES.map((s) =>
    daily(
      `${s}_min_hours`,
      { min: `${s}_min_hours` },
      `The lowest ${NAMES[s]} minimum of the day.`,
      `${NAMES[s]}, minimum`,
    ),
  ),
];

/** The `grid.pumped_storage` dataset. */
export const pumpedStorage = defineDataset({
  id: "grid.pumped_storage",
  title: "Pumped storage",
  kind: "readings",
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
      "Drakensberg",
      "Drakensberg: hours of generation left in its upper reservoir (`Drakensberg Gen Unit Hours`).",
    ),
    palmiet_hours: field(
      COL.palmietHours,
      "Palmiet",
      "Palmiet: hours of generation left (`Palmiet Gen Unit Hours`).",
    ),
    ingula_hours: field(
      COL.ingulaHours,
      "Ingula",
      "Ingula: hours of generation left (`Ingula Gen Unit Hours`).",
    ),
    drakensberg_max_hours: field(
      COL.drakensbergMax,
      "Drakensberg, maximum",
      "Drakensberg's maximum, in the same hours, as the pumped-storage file publishes it (`Drakensberg Max Hours`); 102 in every file seen, the full reservoir.",
    ),
    palmiet_max_hours: field(
      COL.palmietMax,
      "Palmiet, maximum",
      "Palmiet's maximum (`Palmiet Max Hours`); 58.7 in every file seen.",
    ),
    ingula_max_hours: field(
      COL.ingulaMax,
      "Ingula, maximum",
      "Ingula's maximum (`Ingula Max Hours`); 67 in every file seen.",
    ),
    drakensberg_min_hours: field(
      COL.drakensbergMin,
      "Drakensberg, minimum",
      "Drakensberg's minimum (`Drakensberg Min Hours`); 12 in every file seen, the level kept in reserve.",
    ),
    palmiet_min_hours: field(
      COL.palmietMin,
      "Palmiet, minimum",
      "Palmiet's minimum (`Palmiet Min Hours`); 8 in every file seen.",
    ),
    ingula_min_hours: field(
      COL.ingulaMin,
      "Ingula, minimum",
      "Ingula's minimum (`Ingula Min Hours`); 12 in every file seen.",
    ),
  },
  daily: { ...Object.fromEntries(DAILY), hours: { ...HOURS_FIELD, from: { count: true } } },
  chart: { kind: "lines" },
});
