/** `generation.mix`: generation by fuel type, hourly as published or averaged per UTC day. */
import * as aq from "arquero";
import { type Reading, valueAt } from "../source/reading.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { dayKey, dayRange, formatInstant } from "../time.ts";
import type { DataRecord, Dataset, RangeRequest } from "./dataset.ts";
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

/** The `generation.mix` dataset. */
export const generationMix: Dataset = {
  id: "generation.mix",
  path: "/api/v1/generation/mix",
  scope: "normalized_data",
  meta: (interval) =>
    interval === "1h" ? { derived: false } : { derived: true, derivation_method: "aggregation_from_1h" },
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
