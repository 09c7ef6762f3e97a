/**
 * Grid stress v2 as a dataset table (`version=v2`, the default): how each served field reads the
 * formula of `stress-v2.ts` and how it aggregates to a day.
 */
import type { Reading } from "../source/reading.ts";
import { HOURS_FIELD } from "../datasets/dataset.ts";
import { defineDataset, type HourAt } from "../datasets/dataset-table.ts";
import { round3 } from "../datasets/source-fields.ts";
import { STRESS_BANDS, stressBand } from "./stress-formula.ts";
import { stressReference } from "./stress-reference.ts";
import { bandHours, INDEX, STRESS_ID, STRESS_PARAMETERS, STRESS_PATH } from "./stress-fields.ts";
import {
  hasV2Input,
  STRESS_V2,
  stressWindow,
  type StressWindow,
  V2_COMPONENTS,
  type V2Component,
  type V2Components,
  v2Components,
  v2Value,
} from "./stress-v2.ts";

export const V2_DESCRIPTION =
  "Grid-stress index v2: the probability, 0 to 1, that load is being shed in the hour (load shedding likely or active near 1).";

/** One hour of v2, unrounded. */
export interface StressHourV2 {
  readonly components: V2Components;
  readonly value: number | null;
}

/** The v2 components and value of one stored hour, or null when it holds no input of the formula. */
function stressHourV2(reading: Reading, at: HourAt<StressWindow>): StressHourV2 | null {
  if (!hasV2Input(reading)) return null;
  const components = v2Components(reading, at.hour, at.prepared);
  return { components, value: v2Value(components) };
}

const V2_MEANINGS: Readonly<Record<V2Component, string>> = {
  diesel_day: "Diesel peakers: mean Eskom + IPP OCGT output over the 24 hours to this one, over 2,000 MW.",
  diesel_week: "The same over the 168 hours to this one.",
  supply_gap:
    "Forecast residual demand against the most the dispatchable fleet supplied in the 24 hours before: 0.5 at equal, 1 at 10% short.",
  fleet_decline: "How far that 24-hour best fell below the best of the week before: 1 at 10%.",
  pumped_storage_low: "1 less the mean fill of the pumped-storage reservoirs.",
  interruptible_load: "Interruptible load in use (ILS + IOS) over 1,000 MW.",
  evening_peak: "1 from 17:00 to 21:59 SAST, else 0.",
};
// The week of diesel and supply before an hour that the windowed components read.
const V2_LOOKBACK_DAYS = 7;

/** Grid stress v2, the default. */
export const gridStressV2 = defineDataset({
  id: STRESS_ID,
  path: STRESS_PATH,
  scope: "features",
  description: `${V2_DESCRIPTION} Its formula is published in this endpoint's entry at /docs and in docs/api.md.`,
  reference: stressReference(),
  derived: { "1h": true, "1d": true },
  parameters: STRESS_PARAMETERS,
  meta: () => ({
    derivation_method: "computed_from_source",
    feature: "grid_stress_index",
    version: STRESS_V2,
  }),
  prepare: stressWindow,
  hour: stressHourV2,
  hourly: {
    value: {
      ...INDEX,
      description: `${V2_DESCRIPTION} Null only when no component can be computed.`,
      value: (h) => h.value,
      lookbackDays: V2_LOOKBACK_DAYS,
    },
    band: {
      type: "string",
      nullable: true,
      enum: STRESS_BANDS.map(([name]) => name),
      description: "low below 0.3, moderate from 0.3, high from 0.6, critical from 0.8.",
      value: (h) => stressBand(round3(h.value)),
      lookbackDays: V2_LOOKBACK_DAYS,
    },
    version: {
      type: "string",
      enum: [STRESS_V2],
      description: "The formula's version.",
      value: () => STRESS_V2,
    },
    components: {
      type: "object",
      optional: true,
      description: "With components=true: each component, 0 to 1, or null when an input is missing.",
      properties: V2_COMPONENTS.map((name) => ({ name, ...INDEX, description: V2_MEANINGS[name] })),
      value: (h) => h.components,
      lookbackDays: V2_LOOKBACK_DAYS,
      onlyWith: "components",
    },
  },
  daily: {
    hours: { ...HOURS_FIELD, from: { count: true } },
    avg_value: { ...INDEX, description: "Mean value over the day's hours.", from: { mean: "value" } },
    max_value: { ...INDEX, description: "Highest value of the day.", from: { max: "value" } },
    ...bandHours,
  },
});
