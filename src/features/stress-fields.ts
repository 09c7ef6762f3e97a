/**
 * What both versions of the grid-stress dataset share: a value's field, the daily hours per band,
 * the `components` parameter, and the dataset's id and path.
 */
import * as v from "valibot";
import type { FieldText } from "../datasets/dataset.ts";
import type { DailyField } from "../datasets/dataset-table.ts";
import { STRESS_BANDS } from "./stress-formula.ts";

/** A value of the index, 0 to 1. */
export const INDEX: FieldText = {
  type: "number",
  unit: "index",
  nullable: true,
  minimum: 0,
  maximum: 1,
  description: "",
};

/** The daily hours in each band. */
export const bandHours = Object.fromEntries(
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
