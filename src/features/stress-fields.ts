/**
 * What both versions of the grid-stress dataset share: their served fields (a value, its band,
 * the version, the components; per day the mean, the maximum and the hours in each band), the
 * `components` parameter, and the dataset's id and path.
 */
import * as v from "valibot";
import { type FieldText, HOURS_FIELD } from "../datasets/dataset.ts";
import type { DailyField, HourlyField } from "../datasets/dataset-table.ts";
import { round3 } from "../datasets/source-fields.ts";
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

/**
 * The hourly fields of a version: its value, the band of the served (rounded) value, its name, and
 * its components, each reading `lookbackDays` before the hour.
 */
export function indexFields<H extends IndexHour>(version: {
  readonly name: string;
  readonly description: string;
  /** Its components in served order, and what each means. */
  readonly components: readonly string[];
  readonly meanings: Readonly<Record<string, string>>;
  readonly lookbackDays: number;
}): Record<"value" | "band" | "version" | "components", HourlyField<H>> {
  const { name, description, components, meanings, lookbackDays } = version;
  return {
    value: {
      ...INDEX,
      description: `${description} Null only when no component can be computed.`,
      value: (h) => h.value,
      lookbackDays,
    },
    band: {
      type: "string",
      nullable: true,
      enum: STRESS_BANDS.map(([band]) => band),
      description: "low below 0.3, moderate from 0.3, high from 0.6, critical from 0.8.",
      value: (h) => stressBand(round3(h.value)),
      lookbackDays,
    },
    version: { type: "string", enum: [name], description: "The formula's version.", value: () => name },
    components: {
      type: "object",
      optional: true,
      description: "With components=true: each component, 0 to 1, or null when an input is missing.",
      properties: components.map((component) => ({
        name: component,
        ...INDEX,
        description: meanings[component]!,
      })),
      value: (h) => h.components,
      lookbackDays,
      onlyWith: "components",
    },
  };
}

/** The daily fields of either version. */
export const DAILY_INDEX_FIELDS = {
  hours: { ...HOURS_FIELD, from: { count: true } },
  avg_value: { ...INDEX, description: "Mean value over the day's hours.", from: { mean: "value" } },
  max_value: { ...INDEX, description: "Highest value of the day.", from: { max: "value" } },
  ...bandHours,
} satisfies Record<string, DailyField<"value" | "band">>;
