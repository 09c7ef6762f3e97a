/**
 * Validates the query string of a dataset request (docs/api.md: "Ranges") into a `RangeRequest`.
 * When several rules are broken, the first in the order of `BAD_REQUEST_CODES` is reported.
 */
import * as v from "valibot";
import { type DatasetParameter, type Interval, INTERVALS, type RangeRequest } from "../datasets/dataset.ts";
import type { QueryParameter } from "./route-doc.ts";
import { DAY_MS } from "../time.ts";
import { badRequest } from "./http-error.ts";
import { type Instant, InstantSchema } from "./instant.ts";

/** The longest span, in days, allowed at each interval. */
export const MAX_SPAN_DAYS: Readonly<Record<Interval, number>> = { "1h": 366, "1d": 7320 };

const IntervalSchema = v.picklist(INTERVALS);

/** The range's own parameters, validated below in the order of `BAD_REQUEST_CODES`. */
export const RANGE_PARAMETERS: Readonly<Record<"start" | "end" | "interval", QueryParameter>> = {
  start: {
    schema: InstantSchema,
    expected: "an ISO-8601 date-time with an offset or a date",
    default: undefined,
    required: true,
    description:
      "Range start: an ISO-8601 date-time with an offset (Z, +hh:mm, +hhmm, +hh; seconds and fractions optional), or a date YYYY-MM-DD (00:00 UTC).",
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
    expected: INTERVALS.join(" or "),
    default: "1h",
    description: "1h: the hours beginning in the range. 1d: the UTC days whose 00:00 lies in it.",
  },
};

/** The validated range and options, plus whether each bound carried a fraction of a second. */
export interface ParsedRange extends RangeRequest {
  readonly startFractional: boolean;
  readonly endFractional: boolean;
}

/** Parses and validates a dataset query; throws a 400 HttpError. */
export function parseRangeQuery(
  params: URLSearchParams,
  extras: Readonly<Record<string, DatasetParameter>> = {},
): ParsedRange {
  checkNames(params, [...Object.keys(RANGE_PARAMETERS), ...Object.keys(extras)]);
  const options = parseOptions(params, extras);
  const start = instant(params, "start");
  const end = instant(params, "end");
  const interval = parseInterval(params.get("interval") ?? "1h");
  checkSpan(start.ms, end.ms, interval);
  return {
    start: start.ms,
    end: end.ms,
    interval,
    options,
    startFractional: start.fractional,
    endFractional: end.fractional,
  };
}

// missing_params, unknown_parameter, then a repeated one (invalid_parameter).
function checkNames(params: URLSearchParams, allowed: readonly string[]): void {
  const names = [...new Set(params.keys())];
  const missing = ["start", "end"].filter((name) => (params.get(name) ?? "") === "");
  if (missing.length > 0) {
    throw badRequest(
      "missing_params",
      `Missing required query parameter${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}. ` +
        "Both 'start' and 'end' are required, as ISO-8601 date-times with an offset (e.g. 2024-01-01T00:00:00Z) or dates.",
    );
  }
  const unknown = names.filter((name) => !allowed.includes(name));
  if (unknown.length > 0) {
    throw badRequest(
      "unknown_parameter",
      `Unknown query parameter${unknown.length > 1 ? "s" : ""}: ${unknown.map((n) => `'${n}'`).join(", ")}. ` +
        `Allowed: ${allowed.join(", ")}.`,
    );
  }
  const repeated = names.find((name) => params.getAll(name).length > 1);
  if (repeated !== undefined) {
    throw badRequest(
      "invalid_parameter",
      `Query parameter '${repeated}' is given more than once; give it once.`,
    );
  }
}

// Each extra parameter's value, or its default when absent.
function parseOptions(
  params: URLSearchParams,
  extras: Readonly<Record<string, DatasetParameter>>,
): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [name, extra] of Object.entries(extras)) {
    const raw = params.get(name);
    if (raw === null) {
      options[name] = extra.default;
      continue;
    }
    const result = v.safeParse(extra.schema, raw);
    if (!result.success) {
      throw badRequest(
        "invalid_parameter",
        `Query parameter '${name}' must be ${extra.expected}, not '${raw}'.`,
      );
    }
    options[name] = result.output;
  }
  return options;
}

function parseInterval(raw: string): Interval {
  const interval = v.safeParse(IntervalSchema, raw);
  if (!interval.success) {
    throw badRequest(
      "unsupported_interval",
      `Unsupported interval '${raw}'. Supported intervals: ${INTERVALS.join(", ")}.`,
    );
  }
  return interval.output;
}

function checkSpan(start: number, end: number, interval: Interval): void {
  if (end <= start) {
    throw badRequest("bad_request", "'end' must be after 'start'; the range is [start, end).");
  }
  const limit = MAX_SPAN_DAYS[interval];
  if (end - start > limit * DAY_MS) {
    throw badRequest(
      "range_too_large",
      `The range spans more than ${limit} days, the longest allowed at interval ${interval}. ` +
        "Split it into several requests" +
        (interval === "1h" ? ", or ask for interval 1d." : "."),
    );
  }
}

function instant(params: URLSearchParams, name: string): Instant {
  const raw = params.get(name)!;
  const result = v.safeParse(InstantSchema, raw);
  if (result.success) return result.output;
  const problem = result.issues[0].message;
  const detail =
    problem === "no_offset"
      ? `'${name}' has no UTC offset: '${raw}'. Add 'Z' for UTC or an offset such as '+02:00' (e.g. '${raw}Z').`
      : problem === "impossible"
        ? `'${name}' is not a real date-time: '${raw}'.`
        : problem === "out_of_range"
          ? `'${name}' is outside the years 1900 to 9999 (in UTC, after its offset): '${raw}'.`
          : `'${name}' is not an ISO-8601 date-time: '${raw}'. Use e.g. 2024-01-01T00:00:00Z or 2024-01-01.`;
  throw badRequest("invalid_datetime", detail);
}
