/**
 * `grid.load_reduction`: load shed or curtailed on the system operator's instruction, and the
 * other interruptions of supply, hourly as published or summed per UTC day (docs/api.md: "Load
 * reduction"). MW are hourly averages, so a day's MWh is the sum of its hours' MW.
 */
import { type Reading, valueAt } from "../source/reading.ts";
import { fromSourceMeta, HOURS_FIELD, mw, MW } from "../records/dataset.ts";
import { defineDataset } from "../records/dataset-table.ts";
import { COL, namesOf, storedMw } from "../records/source-fields.ts";

const INPUTS = [COL.manualLoadReduction, COL.interruptibleLoad, COL.otherInterruptions];

/** The reading of an hour holding at least one load-reduction column, else null. */
export function loadReductionHour(reading: Reading): Reading | null {
  return INPUTS.some((column) => valueAt(reading, column) !== null) ? reading : null;
}

/** The three summed, or null when any of them is missing. */
function total(reading: Reading): number | null {
  let sum = 0;
  for (const column of INPUTS) {
    const value = valueAt(reading, column);
    if (value === null) return null;
    sum += value;
  }
  return sum;
}

const MWH = { type: "number", unit: "MWh", nullable: true } as const;

/** The `grid.load_reduction` dataset. */
export const loadReduction = defineDataset({
  id: "grid.load_reduction",
  title: "Load reduction",
  kind: "readings",
  path: "/api/v1/grid/load-reduction",
  scope: "normalized_data",
  description:
    "Load reduction: manual load reduction (load shedding and curtailment instructed by the system operator), interruptible load and other interruptions, hourly or summed per UTC day.",
  derived: { "1h": true, "1d": true },
  meta: fromSourceMeta,
  hour: loadReductionHour,
  hourly: {
    manual_load_reduction_mw: storedMw(
      "Load shedding",
      "Manual load reduction (`Manual Load_Reduction(MLR)`): load shedding and curtailment instructed by the system operator.",
      COL.manualLoadReduction,
    ),
    interruptible_load_mw: storedMw(
      "Interruptible load",
      "Interruptible load supply used (`ILS Usage`).",
      COL.interruptibleLoad,
    ),
    other_interruptions_mw: storedMw(
      "Other interruptions",
      "Other interruptions of supply (`IOS Excl ILS and MLR`).",
      COL.otherInterruptions,
    ),
    total_load_reduction_mw: {
      ...mw(
        "Load reduction, total",
        "manual_load_reduction_mw + interruptible_load_mw + other_interruptions_mw; null when any is null.",
      ),
      columns: namesOf(...INPUTS),
      value: total,
    },
  },
  daily: {
    manual_load_reduction_mwh: {
      ...MWH,
      label: "Load shed",
      description: "The day's manual load reduction: the sum of its hours' manual_load_reduction_mw.",
      from: { sum: "manual_load_reduction_mw" },
    },
    manual_load_reduction_max_mw: {
      ...MW,
      description: "The day's highest hourly manual_load_reduction_mw.",
      from: { max: "manual_load_reduction_mw" },
    },
    hours_with_manual_load_reduction: {
      type: "integer",
      unit: "h",
      nullable: true,
      minimum: 0,
      maximum: 24,
      description: "How many of the day's hours had manual_load_reduction_mw above 0.",
      from: { countAbove: "manual_load_reduction_mw", above: 0 },
    },
    total_load_reduction_mwh: {
      ...MWH,
      description: "The sum of the day's total_load_reduction_mw (hours where it is null are skipped).",
      from: { sum: "total_load_reduction_mw" },
    },
    hours: { ...HOURS_FIELD, from: { count: true } },
  },
  chart: { kind: "lines", heatmap: "manual_load_reduction_mw" },
});
