/** `features.grid_stress_index`: the grid-stress index of `features/grid-stress.ts`, hourly or per UTC day. */
import * as aq from "arquero";
import * as v from "valibot";
import {
  RE_LOOKBACK_DAYS,
  RE_MIN_DAYS,
  STRESS_BANDS,
  STRESS_VERSION,
  STRESS_WEIGHTS,
  type StressComponent,
  type StressComponents,
  stressBand,
  stressComponents,
  type StressInputs,
  stressValue,
} from "../features/grid-stress.ts";
import { requireColumn } from "../source/columns.ts";
import { type Reading, valueAt } from "../source/reading.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { dayKey, dayRange, DAY_MS, formatInstant, HOUR_MS } from "../time.ts";
import {
  type DataRecord,
  type Dataset,
  type FieldDoc,
  HOURS_FIELD,
  type RangeRequest,
  TIME_FIELDS,
} from "./dataset.ts";
import { COL, round3, totalRe } from "./source-fields.ts";
import { forEachStoredHour } from "./stored-hours.ts";

const INSTALLED = requireColumn("installed_eskom_capacity");
const PCLF = requireColumn("total_pclf");
const UCLF = requireColumn("total_uclf");
const OCLF = requireColumn("total_oclf");
const IPP_OCGT = requireColumn("dispatchable_ipp_ocgt");

/** One hour of the index, unrounded. */
export interface StressHour {
  readonly hour: number;
  readonly components: StressComponents;
  readonly value: number | null;
}

/** The formula's stored inputs of one reading (the usual RE comes from history). */
export function stressInputs(reading: Reading, usualRe: number | null): StressInputs {
  return {
    residualDemand: valueAt(reading, COL.residualDemand),
    residualForecast: valueAt(reading, COL.residualForecast),
    installedCapacity: valueAt(reading, INSTALLED),
    plannedOutage: valueAt(reading, PCLF),
    unplannedOutage: valueAt(reading, UCLF),
    otherOutage: valueAt(reading, OCLF),
    utilityOcgt: valueAt(reading, COL.utilityOcgt),
    ippOcgt: valueAt(reading, IPP_OCGT),
    totalRe: totalRe(reading),
    usualRe,
  };
}

function hasInput(i: StressInputs): boolean {
  return Object.entries(i).some(([name, v]) => name !== "usualRe" && v !== null);
}

/**
 * The usual total RE of every hour in [from, to): the mean at the same UTC hour over the
 * previous RE_LOOKBACK_DAYS days, kept as one rolling sum per hour of day.
 */
function usualRenewables(store: ReadingStore, from: number, to: number): (hour: number) => number | null {
  const base = Math.floor(from / DAY_MS) * DAY_MS - RE_LOOKBACK_DAYS * DAY_MS;
  const n = Math.ceil((to - base) / HOUR_MS);
  const re = new Float64Array(n).fill(NaN);
  forEachStoredHour(store, base, to, (hour, reading) => {
    re[(hour - base) / HOUR_MS] = totalRe(reading) ?? NaN;
  });
  const usual = new Float64Array(n).fill(NaN);
  const sums = new Float64Array(24);
  const counts = new Int32Array(24);
  const span = 24 * RE_LOOKBACK_DAYS;
  for (let i = 0; i < n; i++) {
    const h = i % 24;
    const entering = i - 24;
    if (entering >= 0 && !Number.isNaN(re[entering]!)) {
      sums[h] = sums[h]! + re[entering]!;
      counts[h] = counts[h]! + 1;
    }
    const leaving = i - 24 - span;
    if (leaving >= 0 && !Number.isNaN(re[leaving]!)) {
      sums[h] = sums[h]! - re[leaving]!;
      counts[h] = counts[h]! - 1;
    }
    if (counts[h]! >= RE_MIN_DAYS) usual[i] = sums[h]! / counts[h]!;
  }
  return (hour) => {
    const v = usual[(hour - base) / HOUR_MS];
    return v === undefined || Number.isNaN(v) ? null : v;
  };
}

/** The index of every stored hour in [from, to) holding at least one of its inputs. */
export function stressHours(store: ReadingStore, from: number, to: number): StressHour[] {
  const usual = usualRenewables(store, from, to);
  const out: StressHour[] = [];
  forEachStoredHour(store, from, to, (hour, reading) => {
    const inputs = stressInputs(reading, usual(hour));
    if (!hasInput(inputs)) return;
    const components = stressComponents(inputs);
    out.push({ hour, components, value: stressValue(components) });
  });
  return out;
}

const COMPONENTS = Object.keys(STRESS_WEIGHTS) as StressComponent[];

/** Served hourly records; `components` adds the components object. */
export function stressHourlyRecords(hours: readonly StressHour[], withComponents: boolean): DataRecord[] {
  return hours.map(({ hour, components, value }) => {
    const rounded = round3(value);
    const record: DataRecord = {
      ts: formatInstant(hour),
      value: rounded,
      band: stressBand(rounded),
      version: STRESS_VERSION,
    };
    if (withComponents) {
      record.components = Object.fromEntries(COMPONENTS.map((name) => [name, round3(components[name])]));
    }
    return record;
  });
}

/** One record per UTC day: hours, mean and maximum value, and the hours spent in each band. */
export function aggregateStressDays(hours: readonly StressHour[]): DataRecord[] {
  if (hours.length === 0) return [];
  const rows = hours.map(({ hour, value }) => {
    const band = stressBand(round3(value));
    return {
      date: dayKey(hour),
      value,
      ...Object.fromEntries(STRESS_BANDS.map(([name]) => [`hours_${name}`, band === name ? 1 : 0])),
    };
  });
  const table = aq.from(rows);
  const rollup = Object.fromEntries([
    ["hours", aq.op.count()],
    ["avg_value", aq.op.mean("value")],
    ["max_value", aq.op.max("value")],
    ...STRESS_BANDS.map(([name]) => [`hours_${name}`, aq.op.sum(`hours_${name}`)]),
  ]) as Parameters<typeof table.rollup>[0];
  const daily = table.groupby("date").rollup(rollup).orderby("date").objects() as Record<string, unknown>[];
  return daily.map((day) => {
    const record: DataRecord = {
      date: day.date as string,
      hours: day.hours as number,
      avg_value: round3(day.avg_value as number | undefined),
      max_value: round3(day.max_value as number | undefined),
    };
    for (const [name] of STRESS_BANDS) record[`hours_${name}`] = day[`hours_${name}`] as number;
    return record;
  });
}

const INDEX_DESCRIPTION = "Grid-stress index v1, 0 (slack) to 1 (load shedding likely or active).";
const COMPONENT_MEANINGS: Readonly<Record<StressComponent, string>> = {
  residual_demand: "Load level: residual demand between 22 GW (0) and 32 GW (1).",
  ocgt_ramp: "Diesel peakers: Eskom + IPP OCGT output over 2,000 MW.",
  reserve_margin: "Spare capacity: available capacity less residual demand, 20% margin (0) to none (1).",
  renewable_shortfall: "Renewables below their mean at this UTC hour over the previous 28 days.",
  forecast_error: "Residual demand above its forecast, a 5% miss being 1.",
};

const HOURLY_DOCS: readonly FieldDoc[] = [
  TIME_FIELDS["1h"],
  {
    name: "value",
    type: "number",
    unit: "index",
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: `${INDEX_DESCRIPTION} Null only when no component can be computed.`,
  },
  {
    name: "band",
    type: "string",
    nullable: true,
    enum: STRESS_BANDS.map(([name]) => name),
    description: "low below 0.3, moderate from 0.3, high from 0.6, critical from 0.8.",
  },
  { name: "version", type: "string", enum: [STRESS_VERSION], description: "The formula's version." },
  {
    name: "components",
    type: "object",
    optional: true,
    description: "With components=true: each component, 0 to 1, or null when an input is missing.",
    properties: COMPONENTS.map((name) => ({
      name,
      type: "number",
      unit: "index",
      nullable: true,
      minimum: 0,
      maximum: 1,
      description: COMPONENT_MEANINGS[name],
    })),
  },
];

const DAILY_DOCS: readonly FieldDoc[] = [
  TIME_FIELDS["1d"],
  HOURS_FIELD,
  {
    name: "avg_value",
    type: "number",
    unit: "index",
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: "Mean value over the day's hours.",
  },
  {
    name: "max_value",
    type: "number",
    unit: "index",
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: "Highest value of the day.",
  },
  ...STRESS_BANDS.map(([name]) => ({
    name: `hours_${name}`,
    type: "integer" as const,
    unit: "h",
    minimum: 0,
    maximum: 24,
    description: `Hours of the day in band ${name}.`,
  })),
];

/** The grid-stress dataset. */
export const gridStress: Dataset = {
  id: "features.grid_stress_index",
  path: "/api/v1/features/grid-stress",
  scope: "features",
  description: `${INDEX_DESCRIPTION} Its formula is published in the README.`,
  fields: { "1h": HOURLY_DOCS, "1d": DAILY_DOCS },
  derived: { "1h": true, "1d": true },
  // The usual renewables of a day's hours come from the days before it.
  lookbackDays: RE_LOOKBACK_DAYS,
  parameters: {
    components: {
      schema: v.pipe(
        v.picklist(["true", "false"]),
        v.transform((s) => s === "true"),
      ),
      expected: "'true' or 'false'",
      default: false,
    },
  },
  meta: () => ({
    derivation_method: "computed_from_grid.system_state",
    feature: "grid_stress_index",
    version: STRESS_VERSION,
  }),
  records(store: ReadingStore, { start, end, interval, options }: RangeRequest): DataRecord[] {
    if (interval === "1h")
      return stressHourlyRecords(stressHours(store, start, end), options.components === true);
    const { from, to } = dayRange(start, end);
    return aggregateStressDays(stressHours(store, from, to));
  },
};
