/** `generation.mix`: generation by fuel type, hourly as published or averaged per UTC day. */
import * as aq from "arquero";
import { type Reading, valueAt } from "../source/reading.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { dayKey, dayRange, formatInstant } from "../time.ts";
import { type DataRecord, type Dataset, HOURS_FIELD, mw, type RangeRequest, TIME_FIELDS } from "./dataset.ts";
import { MIX_FIELDS, round3 } from "./source-fields.ts";
import { forEachStoredHour } from "./stored-hours.ts";

/** The generation mix of one hour, unrounded, or null when the reading holds none of its fields. */
export function generationMixHour(reading: Reading): Record<string, number | null> | null {
  const values: Record<string, number | null> = {};
  let any = false;
  for (const [field, column] of MIX_FIELDS) {
    const v = valueAt(reading, column);
    values[field] = v;
    if (v !== null) any = true;
  }
  return any ? values : null;
}

function mixHours(
  store: ReadingStore,
  from: number,
  to: number,
): { hour: number; mix: Record<string, number | null> }[] {
  const out: { hour: number; mix: Record<string, number | null> }[] = [];
  forEachStoredHour(store, from, to, (hour, reading) => {
    const mix = generationMixHour(reading);
    if (mix !== null) out.push({ hour, mix });
  });
  return out;
}

/** Averages hourly generation mix per UTC day: `avg_<field>` and the hour count. */
export function aggregateGenerationMixDays(
  hours: readonly { hour: number; mix: Record<string, number | null> }[],
): DataRecord[] {
  if (hours.length === 0) return [];
  const table = aq.from(hours.map(({ hour, mix }) => ({ date: dayKey(hour), ...mix })));
  const rollup = Object.fromEntries([
    ["hours", aq.op.count()],
    ...MIX_FIELDS.map(([field]) => [`avg_${field}`, aq.op.mean(field)]),
  ]) as Parameters<typeof table.rollup>[0];
  const daily = table.groupby("date").rollup(rollup).orderby("date").objects() as Record<
    string,
    string | number | undefined
  >[];
  return daily.map((day) => {
    const record: DataRecord = { date: day.date as string, hours: day.hours as number };
    for (const [field] of MIX_FIELDS)
      record[`avg_${field}`] = round3(day[`avg_${field}`] as number | undefined);
    return record;
  });
}

const MEANINGS: Readonly<Record<string, string>> = {
  thermal_mw: "Coal-fired generation (`Thermal Generation`).",
  nuclear_mw: "Nuclear generation.",
  utility_gas_mw: "Gas turbine output of the national utility (`Eskom Gas Generation`).",
  utility_ocgt_mw: "Open-cycle gas turbine (diesel peaking) output of the utility (`Eskom OCGT Generation`).",
  hydro_water_mw: "Hydro generation.",
  pumped_water_gen_mw: "Pumped-storage generation.",
  wind_mw: "Wind generation.",
  pv_mw: "Solar PV generation.",
  csp_mw: "Concentrated solar power.",
  other_re_mw: "Other renewables.",
};

/** The `generation.mix` dataset. */
export const generationMix: Dataset = {
  id: "generation.mix",
  path: "/api/v1/generation/mix",
  scope: "normalized_data",
  description: "Generation by fuel type, as published (hourly) or averaged per UTC day.",
  fields: {
    "1h": [TIME_FIELDS["1h"], ...MIX_FIELDS.map(([field]) => mw(field, MEANINGS[field]!))],
    "1d": [
      TIME_FIELDS["1d"],
      HOURS_FIELD,
      ...MIX_FIELDS.map(([field]) => mw(`avg_${field}`, `Mean over the day's hours. ${MEANINGS[field]!}`)),
    ],
  },
  derived: { "1h": false, "1d": true },
  lookbackDays: 0,
  meta: (interval) => (interval === "1h" ? {} : { derivation_method: "aggregation_from_1h" }),
  records(store: ReadingStore, { start, end, interval }: RangeRequest): DataRecord[] {
    if (interval === "1h") {
      return mixHours(store, start, end).map(({ hour, mix }) => {
        const record: DataRecord = { ts: formatInstant(hour) };
        for (const [field] of MIX_FIELDS) record[field] = round3(mix[field]);
        return record;
      });
    }
    const { from, to } = dayRange(start, end);
    return aggregateGenerationMixDays(mixHours(store, from, to));
  },
};
