/**
 * The parameters of a range (docs/api.md: "Ranges"): their schemas, which validate each raw value,
 * and their documentation, which the OpenAPI document, the catalog and the MCP tools read.
 */
import * as v from "valibot";
import { AGGREGATES } from "../records/dataset.ts";
import { PERIODS, ZONES } from "../periods.ts";
import type { QueryParameter } from "./route-doc.ts";
import { InstantSchema } from "./instant.ts";

/** The intervals a range can be asked at: hours, or periods of a day or longer. */
export const REQUEST_INTERVALS = ["1h", ...PERIODS] as const;
export type RequestInterval = (typeof REQUEST_INTERVALS)[number];

/** The schema of `interval`. */
export const IntervalSchema = v.picklist(REQUEST_INTERVALS);

/** The range's own parameters, validated below in the order of `BAD_REQUEST_CODES`. */
export const RANGE_PARAMETERS: Readonly<
  Record<"start" | "end" | "interval" | "tz" | "agg" | "columns", QueryParameter>
> = {
  start: {
    schema: InstantSchema,
    expected: "an ISO-8601 date-time with an offset or a date",
    default: undefined,
    required: true,
    description:
      "Range start: an ISO-8601 date-time with an offset (Z, +hh:mm, +hhmm, +hh; seconds and fractions optional), or a date YYYY-MM-DD (00:00 in tz: UTC by default).",
    example: "2025-06-01T00:00:00Z",
  },
  end: {
    schema: InstantSchema,
    expected: "an ISO-8601 date-time with an offset or a date",
    default: undefined,
    required: true,
    description: "Range end, excluded; same forms as start.",
    example: "2025-06-02T00:00:00Z",
  },
  interval: {
    schema: IntervalSchema,
    expected: REQUEST_INTERVALS.join(", "),
    default: "1h",
    description:
      "1h: the hours beginning in the range. 1d, 1w (ISO weeks, Monday first), 1mo, 1y, fy (Eskom's financial year, April to March): the periods whose beginning (00:00 in tz) lies in it, each aggregated over its whole length.",
  },
  tz: {
    schema: v.picklist(ZONES),
    expected: ZONES.join(" or "),
    default: "UTC",
    description:
      "UTC (the default) or Africa/Johannesburg (SAST, UTC+02:00, no daylight saving time): the boundaries of days and longer periods, the offset written in stamps, and the meaning of a bare date in start and end. Hourly values are the same hours either way.",
  },
  agg: {
    schema: v.picklist(AGGREGATES),
    expected: AGGREGATES.join(", "),
    default: "mean",
    description:
      "At intervals of a day or longer: mean (the dataset's daily fields, the default), or min, max or sum of each hourly field that allows it, named `<agg>_<field>` (a sum of MW is an energy in MWh; a share, an index or a level has no sum). The catalog lists each field's aggregates.",
  },
  columns: {
    schema: v.pipe(v.string(), v.regex(/^[a-z0-9_]+(,[a-z0-9_]+)*$/)),
    expected: "field names separated by commas",
    default: undefined,
    description:
      "Only these fields of the records (comma-separated, e.g. residual_demand_mw,total_re_mw; the stamp, ts or date, is always included). An unknown name is a 400 that lists the valid ones.",
  },
};

/** A range's own settings besides start, end and interval. */
export const SETTING_PARAMETERS: Readonly<Record<"tz" | "agg" | "columns", QueryParameter>> = {
  tz: RANGE_PARAMETERS.tz,
  agg: RANGE_PARAMETERS.agg,
  columns: RANGE_PARAMETERS.columns,
};
