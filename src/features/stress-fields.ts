/**
 * What both versions of the grid-stress dataset share: their table (`stressVersion`: a value, its
 * band, the version, the components; per day the mean, the maximum and the hours in each band),
 * the `components` parameter, and the dataset's id and path.
 */
import * as v from "valibot";
import { type FieldText, HOURS_FIELD } from "../records/dataset.ts";
import {
  type DailyField,
  defineDataset,
  type HourAt,
  type HourlyField,
  type HourSource,
} from "../records/dataset-table.ts";
import type { Reading } from "../source/reading.ts";
import { round3 } from "../records/source-fields.ts";
import { STRESS_BANDS, stressBand } from "./stress-formula.ts";

/** A value of the index, 0 to 1. */
const INDEX: FieldText = {
  type: "number",
  unit: "index",
  nullable: true,
  minimum: 0,
  maximum: 1,
  description: "",
};

/** The daily hours in each band. */
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

/** The parameters both versions take (`version` is the versioned dataset's). */
export const STRESS_PARAMETERS = {
  components: {
    schema: v.pipe(
      v.picklist(["true", "false"]),
      v.transform((s) => s === "true"),
    ),
    expected: "'true' or 'false'",
    default: false,
    description: "Must be 'true' or 'false'; default false. Adds each record's components (1h only).",
  },
};
export const STRESS_ID = "features.grid_stress_index";
export const STRESS_PATH = "/api/v1/features/grid-stress";

/** One hour of a version of the index, unrounded. */
export interface IndexHour {
  readonly components: Readonly<Record<string, number | null>>;
  readonly value: number | null;
}

/** One version of the index: what tells it apart from the other. */
export interface StressVersion<H, C> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly derivation: string;
  /** The work done once per range (the windows of history the formula reads). */
  readonly prepare: (source: HourSource, from: number, to: number) => C;
  readonly hour: (reading: Reading, at: HourAt<C>) => H | null;
  /** Its components in served order, each with its label and its meaning. */
  readonly components: Readonly<Record<string, readonly [string, string]>>;
  /** Whole days before an hour the formula reads. */
  readonly lookbackDays: number;
  /** The stored columns the formula reads. */
  readonly columns: readonly string[];
}

// The hourly fields of a version, each reading `lookbackDays` before the hour.
function indexFields<H extends IndexHour, C>(
  version: StressVersion<H, C>,
): Record<"value" | "band" | "version" | "components", HourlyField<H>> {
  const { name, description, components, lookbackDays, columns } = version;
  return {
    value: {
      ...INDEX,
      label: "Grid stress",
      columns,
      description: `${description} Null only when no component can be computed.`,
      value: (h: H) => h.value,
      lookbackDays,
    },
    band: {
      label: "Band",
      columns,
      type: "string",
      nullable: true,
      enum: STRESS_BANDS.map(([band]) => band),
      description: "low below 0.3, moderate from 0.3, high from 0.6, critical from 0.8.",
      value: (h: H) => stressBand(round3(h.value)),
      lookbackDays,
    },
    version: {
      label: "Version",
      type: "string",
      enum: [name],
      description: "The formula's version.",
      value: () => name,
    },
    components: {
      label: "Components",
      columns,
      type: "object",
      optional: true,
      description: "With components=true: each component, 0 to 1, or null when an input is missing.",
      properties: Object.entries(components).map(([component, [label, meaning]]) => ({
        name: component,
        label,
        ...INDEX,
        description: meaning,
      })),
      value: (h: H) => h.components,
      lookbackDays,
      onlyWith: "components",
    },
  };
}

/**
 * The dataset table of a version: its value, the band of the served (rounded) value, its name and
 * its components hourly, each reading `lookbackDays` before the hour; per day the mean, the
 * highest and the hours in each band.
 */
export function stressVersion<H extends IndexHour, C>(version: StressVersion<H, C>) {
  const { name, description } = version;
  return defineDataset({
    id: STRESS_ID,
    title: version.title,
    kind: "computed",
    path: STRESS_PATH,
    scope: "features",
    description: `${description} Its formula is published in this endpoint's entry at /docs.`,
    derived: { "1h": true, "1d": true },
    parameters: STRESS_PARAMETERS,
    meta: () => ({ derivation_method: version.derivation, feature: "grid_stress_index", version: name }),
    prepare: version.prepare,
    hour: version.hour,
    hourly: indexFields(version),
    daily: DAILY_INDEX_FIELDS,
    chart: { kind: "lines" },
  });
}

/** The daily fields of either version. */
const DAILY_INDEX_FIELDS = {
  hours: { ...HOURS_FIELD, from: { count: true } },
  avg_value: { ...INDEX, description: "Mean value over the day's hours.", from: { mean: "value" } },
  max_value: { ...INDEX, description: "Highest value of the day.", from: { max: "value" } },
  ...bandHours,
} satisfies Record<string, DailyField<"value" | "band">>;
