/** The OpenAPI schema of a dataset answer's `meta`, from the dataset's table. */
import { type DatasetDoc, type Interval, takes } from "../records/dataset.ts";
import { PERIODS, ZONES } from "../periods.ts";
import { SCHEMA_VERSION } from "./dataset-envelope.ts";
import type { Schema } from "./route-doc.ts";

// How current a dataset read from the reading store is.
const READING_STATUS = {
  last_available: {
    type: ["string", "null"],
    description: "The newest hour holding an actual (not forecast) reading; null on an empty store.",
  },
  data_delay: { type: "boolean", description: "True when the range reaches past last_available." },
};

/** The schema of `meta` in a dataset's answers at `interval`. */
export function metaSchema(dataset: DatasetDoc, interval: Interval): Schema {
  const extra = dataset.meta(interval);
  const instant = {
    type: "string",
    pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{3})?[+-]\\d{2}:\\d{2}$",
  };
  const properties: Record<string, Schema> = {
    dataset: { const: dataset.id },
    interval:
      interval === "1h"
        ? { const: interval, description: "The requested resolution." }
        : {
            enum: (dataset.intervals ?? PERIODS).filter((i) => i !== "1h"),
            description: "The requested period: a day, week, month, year or financial year.",
          },
    timezone: { enum: [...ZONES], description: "The zone of stamps and period boundaries (tz)." },
    schema_version: { const: SCHEMA_VERSION },
    derived: { const: dataset.derived[interval], description: "Whether the service computed the values." },
    ...Object.fromEntries(
      Object.entries(extra).map(([k, v]) => [
        k,
        dataset.metaEnums?.[k] ? { enum: dataset.metaEnums[k] } : { const: v },
      ]),
    ),
    start: { ...instant, description: "The requested start, with the zone's offset." },
    end: { ...instant, description: "The requested end (excluded), with the zone's offset." },
    ...(dataset.statusMeta ?? READING_STATUS),
  };
  const asOf = { ...instant, description: "With as_of: the instant the values are as of, in UTC." };
  const sample = {
    const: true,
    description:
      "Present only when the store holds generated sample data, not Eskom's (also the Data-Source: sample header).",
  };
  return {
    type: "object",
    properties: {
      ...properties,
      ...(interval === "1d" && takes(dataset, "agg")
        ? {
            aggregate: {
              enum: ["min", "max", "sum"],
              description: "With agg other than mean: the aggregate.",
            },
          }
        : {}),
      as_of: asOf,
      sample,
    },
    required: Object.keys(properties),
    additionalProperties: false,
  };
}
