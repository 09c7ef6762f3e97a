/**
 * `features.grid_stress_index`: the index of `features/stress-formula.ts` served hourly or per
 * UTC day. The formula, its inputs and its version live in that file; this table says how each
 * served field reads it and how it aggregates to a day.
 */
import * as v from "valibot";
import {
  hasInput,
  RE_LOOKBACK_DAYS,
  STRESS_BANDS,
  STRESS_VERSION,
  STRESS_WEIGHTS,
  stressBand,
  type StressComponent,
  type StressComponents,
  stressComponents,
  stressInputs,
  stressValue,
  usualRenewables,
} from "../features/stress-formula.ts";
import { stressReference } from "../features/stress-reference.ts";
import type { Reading } from "../source/reading.ts";
import { type FieldText, HOURS_FIELD } from "./dataset.ts";
import { type DailyField, defineDataset, type HourAt, type HourSource } from "./dataset-table.ts";
import { round3 } from "./source-fields.ts";

/** One hour of the index, unrounded. */
export interface StressHour {
  readonly hour: number;
  readonly components: StressComponents;
  readonly value: number | null;
}

type Usual = (hour: number) => number | null;

/** The components and value of one stored hour, or null when it holds no input of the formula. */
function stressHour(reading: Reading, at: HourAt<Usual>): Omit<StressHour, "hour"> | null {
  const inputs = stressInputs(reading, at.prepared(at.hour));
  if (!hasInput(inputs)) return null;
  const components = stressComponents(inputs);
  return { components, value: stressValue(components) };
}

const INDEX_DESCRIPTION = "Grid-stress index v1, 0 (slack) to 1 (load shedding likely or active).";
const COMPONENT_MEANINGS: Readonly<Record<StressComponent, string>> = {
  residual_demand: "Load level: residual demand between 22 GW (0) and 32 GW (1).",
  ocgt_ramp: "Diesel peakers: Eskom + IPP OCGT output over 2,000 MW.",
  reserve_margin: "Spare capacity: available capacity less residual demand, 20% margin (0) to none (1).",
  renewable_shortfall: "Renewables below their mean at this UTC hour over the previous 28 days.",
  forecast_error: "Residual demand above its forecast, a 5% miss being 1.",
};
const COMPONENTS = Object.keys(STRESS_WEIGHTS) as StressComponent[];
const INDEX: FieldText = {
  type: "number",
  unit: "index",
  nullable: true,
  minimum: 0,
  maximum: 1,
  description: "",
};

const bandHours = Object.fromEntries(
  STRESS_BANDS.map(([name]) => [
    `hours_${name}`,
    {
      type: "integer",
      unit: "h",
      minimum: 0,
      maximum: 24,
      description: `Hours of the day in band ${name}.`,
      from: { countOf: "band", equals: name },
    },
  ]),
) as Record<`hours_${(typeof STRESS_BANDS)[number][0]}`, DailyField<"band">>;

/** The grid-stress dataset. */
export const gridStress = defineDataset({
  id: "features.grid_stress_index",
  path: "/api/v1/features/grid-stress",
  scope: "features",
  description: `${INDEX_DESCRIPTION} Its formula is published in this endpoint's entry at /docs and in docs/api.md.`,
  reference: stressReference(),
  derived: { "1h": true, "1d": true },
  parameters: {
    components: {
      schema: v.pipe(
        v.picklist(["true", "false"]),
        v.transform((s) => s === "true"),
      ),
      expected: "'true' or 'false'",
      default: false,
      description: "Must be 'true' or 'false'; default false. Adds each record's components (1h only).",
    },
  },
  meta: () => ({
    derivation_method: "computed_from_grid.system_state",
    feature: "grid_stress_index",
    version: STRESS_VERSION,
  }),
  prepare: usualRenewables,
  hour: stressHour,
  hourly: {
    value: {
      ...INDEX,
      description: `${INDEX_DESCRIPTION} Null only when no component can be computed.`,
      value: (h) => h.value,
      // The renewable-shortfall component compares with the same hour of the days before.
      lookbackDays: RE_LOOKBACK_DAYS,
    },
    band: {
      type: "string",
      nullable: true,
      enum: STRESS_BANDS.map(([name]) => name),
      description: "low below 0.3, moderate from 0.3, high from 0.6, critical from 0.8.",
      // The band of the served (rounded) value.
      value: (h) => stressBand(round3(h.value)),
      lookbackDays: RE_LOOKBACK_DAYS,
    },
    version: {
      type: "string",
      enum: [STRESS_VERSION],
      description: "The formula's version.",
      value: () => STRESS_VERSION,
    },
    components: {
      type: "object",
      optional: true,
      description: "With components=true: each component, 0 to 1, or null when an input is missing.",
      properties: COMPONENTS.map((name) => ({ name, ...INDEX, description: COMPONENT_MEANINGS[name] })),
      value: (h) => h.components,
      lookbackDays: RE_LOOKBACK_DAYS,
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

/** The unrounded index of every stored hour in [from, to) holding at least one of its inputs. */
export function stressHours(store: HourSource, from: number, to: number): StressHour[] {
  return gridStress.hours(store, from, to).map(({ hour, inputs }) => ({ hour, ...inputs }));
}
