/**
 * Grid stress v2 as a dataset table (`version=v2`, the default): how each served field reads the
 * formula of `stress-v2.ts` and how it aggregates to a day.
 */
import type { Reading } from "../source/reading.ts";
import type { HourAt } from "../records/dataset-table.ts";
import { stressVersion } from "./stress-fields.ts";
import {
  hasV2Input,
  STRESS_V2,
  V2_INPUT_COLUMNS,
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
interface StressHourV2 {
  readonly components: V2Components;
  readonly value: number | null;
}

/** The v2 components and value of one stored hour, or null when it holds no input of the formula. */
function stressHourV2(reading: Reading, at: HourAt<StressWindow>): StressHourV2 | null {
  if (!hasV2Input(reading)) return null;
  const components = v2Components(reading, at.hour, at.prepared);
  return { components, value: v2Value(components) };
}

const V2_COMPONENT_TEXTS: Readonly<Record<V2Component, readonly [string, string]>> = {
  diesel_day: [
    "Diesel, day",
    "Diesel peakers: mean Eskom + IPP OCGT output over the 24 hours to this one, over 2,000 MW.",
  ],
  diesel_week: ["Diesel, week", "The same over the 168 hours to this one."],
  supply_gap: [
    "Supply gap",
    "Forecast residual demand against the most the dispatchable fleet supplied in the 24 hours before: 0.5 at equal, 1 at 10% short.",
  ],
  fleet_decline: [
    "Fleet decline",
    "How far that 24-hour best fell below the best of the week before: 1 at 10%.",
  ],
  pumped_storage_low: ["Pumped storage low", "1 less the mean fill of the pumped-storage reservoirs."],
  interruptible_load: ["Interruptible load", "Interruptible load in use (ILS + IOS) over 1,000 MW."],
  evening_peak: ["Evening peak", "1 from 17:00 to 21:59 SAST, else 0."],
};

/** Grid stress v2, the default. */
export const gridStressV2 = stressVersion({
  name: STRESS_V2,
  title: "Grid stress v2",
  description: V2_DESCRIPTION,
  derivation: "computed_from_source",
  prepare: stressWindow,
  hour: stressHourV2,
  components: Object.fromEntries(V2_COMPONENTS.map((c) => [c, V2_COMPONENT_TEXTS[c]])),
  // The week of diesel and supply before an hour that the windowed components read.
  lookbackDays: 7,
  columns: V2_INPUT_COLUMNS,
});
