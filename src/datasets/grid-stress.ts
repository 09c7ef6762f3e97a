/**
 * `features.grid_stress_index`: the grid-stress index served hourly or per UTC day, in two
 * versions: v2 (`grid-stress-v2.ts` over `stress-v2.ts`, the default) and v1 (the table here, over
 * `stress-formula.ts`), which `version=v1` keeps for the clients built on it; and the versioned
 * dataset the service serves, which answers with the version a request asks for.
 */
import * as v from "valibot";
import {
  hasInput,
  RE_LOOKBACK_DAYS,
  STRESS_VERSION,
  STRESS_BANDS,
  STRESS_WEIGHTS,
  type StressComponent,
  type StressComponents,
  stressComponents,
  stressInputs,
  stressValue,
  usualRenewables,
  V1_INPUT_COLUMNS,
} from "../features/stress-formula.ts";
import { stressReference } from "../features/stress-reference.ts";
import type { Reading } from "../source/reading.ts";
import { type Dataset, type FieldDoc, type Interval } from "../records/dataset.ts";
import { STRESS_V2 } from "../features/stress-v2.ts";
import { gridStressV2 } from "../features/grid-stress-v2.ts";
import { STRESS_ID, STRESS_PARAMETERS, STRESS_PATH, stressVersion } from "../features/stress-fields.ts";
import type { HourAt, HourSource } from "../records/dataset-table.ts";

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
const COMPONENT_TEXTS: Readonly<Record<StressComponent, readonly [string, string]>> = {
  residual_demand: ["Load level", "Load level: residual demand between 22 GW (0) and 32 GW (1)."],
  ocgt_ramp: ["Diesel peakers", "Diesel peakers: Eskom + IPP OCGT output over 2,000 MW."],
  reserve_margin: [
    "Spare capacity",
    "Spare capacity: available capacity less residual demand, 20% margin (0) to none (1).",
  ],
  renewable_shortfall: [
    "Renewables shortfall",
    "Renewables below their mean at this UTC hour over the previous 28 days.",
  ],
  forecast_error: ["Forecast miss", "Residual demand above its forecast, a 5% miss being 1."],
};

/** Grid stress v1, as `version=v1` serves it. */
export const gridStressV1 = stressVersion({
  name: STRESS_VERSION,
  title: "Grid stress v1",
  description: INDEX_DESCRIPTION,
  derivation: "computed_from_grid.system_state",
  prepare: usualRenewables,
  hour: stressHour,
  components: Object.fromEntries(
    (Object.keys(STRESS_WEIGHTS) as StressComponent[]).map((c) => [c, COMPONENT_TEXTS[c]]),
  ),
  // The renewable-shortfall component compares with the same hour of the days before.
  lookbackDays: RE_LOOKBACK_DAYS,
  columns: V1_INPUT_COLUMNS,
});

/** The unrounded v1 index of every stored hour in [from, to) holding at least one of its inputs. */
export function stressHours(store: HourSource, from: number, to: number): StressHour[] {
  return gridStressV1.hours(store, from, to).map(({ hour, inputs }) => ({ hour, ...inputs }));
}

/** The versions served, the default first. */
export const STRESS_VERSIONS = [STRESS_V2, STRESS_VERSION] as const;

// The served fields of both versions: `version` names both, `components` holds either set.
function documentedFields(interval: Interval): FieldDoc[] {
  const v2 = gridStressV2.fields[interval];
  if (interval === "1d") return [...v2];
  const v1 = gridStressV1.fields[interval];
  return v2.map((field) => {
    if (field.name === "version") return { ...field, enum: STRESS_VERSIONS };
    if (field.name !== "components") return field;
    const v1Members = v1.find((f) => f.name === "components")!.properties!;
    const members = [...field.properties!, ...v1Members].map((m) => ({
      ...m,
      optional: true,
      description: `${m.description} (${field.properties!.includes(m) ? STRESS_V2 : STRESS_VERSION})`,
    }));
    return {
      ...field,
      description:
        "With components=true: each component of the record's version, 0 to 1, or null when an input is missing.",
      properties: members,
    };
  });
}

/** The bands in words: "low: 0 to below 0.3; ...". */
export function bandWords(): string {
  return STRESS_BANDS.map(([name, from], i) => {
    const to = STRESS_BANDS[i + 1]?.[1];
    return `${name}: ${from} to ${to === undefined ? "1" : `below ${to}`}`;
  }).join("; ");
}

// The table of the version a request asks for.
const versionOf = (options: Readonly<Record<string, unknown>>) =>
  options.version === STRESS_VERSION ? gridStressV1 : gridStressV2;

/** The grid-stress dataset: v2 by default, v1 with `version=v1`. Its hours are the default's. */
export const gridStress: Dataset & Pick<typeof gridStressV2, "hours" | "kind"> = {
  id: STRESS_ID,
  title: "Grid stress",
  kind: "computed",
  path: STRESS_PATH,
  scope: "features",
  description: gridStressV2.description,
  reference: stressReference(),
  derived: { "1h": true, "1d": true },
  parameters: {
    ...STRESS_PARAMETERS,
    version: {
      schema: v.picklist(STRESS_VERSIONS),
      expected: STRESS_VERSIONS.map((name) => `'${name}'`).join(" or "),
      default: STRESS_V2,
      description: `The formula: ${STRESS_V2} (the default) or ${STRESS_VERSION}, kept for clients built on it. Each record names its version.`,
    },
  },
  meta: (interval, options) => versionOf(options ?? {}).meta(interval),
  metaEnums: {
    version: STRESS_VERSIONS,
    derivation_method: ["computed_from_source", "computed_from_grid.system_state"],
  },
  lookbackDays: Math.max(gridStressV1.lookbackDays, gridStressV2.lookbackDays),
  fields: { "1h": documentedFields("1h"), "1d": documentedFields("1d") },
  servedFields: (request) => versionOf(request.options).servedFields(request),
  chart: {
    kind: "lines",
    heatmap: "value",
    bands: {
      unit: "index",
      bands: STRESS_BANDS.map(([name, from], i) => ({ name, from, to: STRESS_BANDS[i + 1]?.[1] ?? 1 })),
    },
  },
  tool: {
    name: "grid_stress",
    description: `The grid-stress index (${STRESS_ID}): v2, the probability from 0 to 1 that load is being shed in the hour, with its band (${bandWords()}). components=true adds the index's inputs. Read the method in the resource gds://reference/grid-stress.`,
    note: `Bands: ${bandWords()}.`,
  },
  hours: (store, from, to) => gridStressV2.hours(store, from, to),
  records: (store, request) => versionOf(request.options).records(store, request),
};

export { gridStressV2 };
