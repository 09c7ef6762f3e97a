/**
 * A query of the load-shedding outlook (docs/api.md: "Load-shedding outlook"): no `start` or
 * `end`, since its hours are those of its issue; `as_of` issues it at another instant, `interval`
 * is `1h` or `1d`, `tz` is SAST unless asked. It answers as the range of the issue's hours, so the
 * envelope, headers and caching are those of any range.
 */
import type { Instant } from "./instant.ts";
import { AS_OF_PARAMETER, FORMAT_PARAMETER, rangeRules } from "./dataset-handler.ts";
import { badRequest } from "./http-error.ts";
import {
  checkNames,
  type ParsedRange,
  parseInterval,
  parseOptions,
  refuseDeclined,
  SETTING_PARAMETERS,
} from "./range-query.ts";
import type { QueryParameter } from "./route-doc.ts";
import type { DatasetDoc } from "../records/dataset.ts";
import type { Zone } from "../periods.ts";

/** `tz` of the outlook: South Africa's days unless asked otherwise. */
export const OUTLOOK_TZ: QueryParameter = {
  ...SETTING_PARAMETERS.tz,
  default: "Africa/Johannesburg",
  description:
    "Africa/Johannesburg (SAST, UTC+02:00: the default here, as load shedding is planned by South Africa's days) or UTC: the days of interval 1d and the offset written in stamps.",
};

/** Parses an outlook query into the range of the hours issued at `as_of` (or now); throws a 400. */
export function parseOutlookQuery(
  params: URLSearchParams,
  dataset: DatasetDoc,
  window: (asOf: number | undefined) => { start: number; end: number },
): ParsedRange {
  const rules = rangeRules(dataset);
  checkNames(params, ["interval", "tz", "format", "as_of", "agg", "columns", "start", "end"], []);
  const given = ["start", "end"].filter((name) => params.has(name));
  if (given.length > 0) {
    throw badRequest(
      "invalid_parameter",
      `${dataset.id} does not take ${given.map((n) => `'${n}'`).join(" or ")}: its hours are those of its issue, from the hour after the newest actual one to 168 hours after it is issued. Ask with as_of for the outlook issued at another instant.`,
    );
  }
  const options = parseOptions(params, { format: FORMAT_PARAMETER, as_of: AS_OF_PARAMETER });
  refuseDeclined(params, options, rules);
  const zone = parseOptions(params, { tz: OUTLOOK_TZ }).tz as Zone;
  const asked = parseInterval(params.get("interval") ?? "1h", rules);
  const { start, end } = window((options.as_of as Instant | undefined)?.ms);
  return {
    start,
    end,
    interval: asked === "1h" ? "1h" : "1d",
    options,
    startFractional: false,
    endFractional: false,
    asked,
    ...(asked === "1h" ? {} : { period: "1d" as const }),
    zone,
    agg: "mean",
    columns: undefined,
  };
}
