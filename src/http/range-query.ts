/**
 * Validates the query string of a dataset request (docs/api.md: "Ranges") into a `RangeRequest`.
 * When several rules are broken, the first in the order of `BAD_REQUEST_CODES` is reported.
 */
import * as v from "valibot";
import {
  type Aggregate,
  type DatasetParameter,
  type Interval,
  type RangeRequest,
  type RangeSetting,
  type SpanLimit,
} from "../records/dataset.ts";
import type { Format } from "./negotiation.ts";
import { DAY_MS } from "../time.ts";
import { type Period, PERIODS, ZONE_OFFSET_MS, type Zone } from "../periods.ts";
import { badRequest, echo } from "./http-error.ts";
import {
  IntervalSchema,
  REQUEST_INTERVALS,
  type RequestInterval,
  SETTING_PARAMETERS,
} from "./range-parameters.ts";

export {
  RANGE_PARAMETERS,
  REQUEST_INTERVALS,
  type RequestInterval,
  SETTING_PARAMETERS,
} from "./range-parameters.ts";
import { type Instant, InstantSchema } from "./instant.ts";

/** The longest span, in days, allowed at each interval (JSON's; CSV and Parquet: `MAX_STREAM_DAYS`). */
export const MAX_SPAN_DAYS: Readonly<Record<Interval, number>> = { "1h": 366, "1d": 7320 };

/** The longest hourly span in CSV and Parquet, which stream: 20 years, as at interval 1d. */
export const MAX_STREAM_DAYS = 7320;

/** What a dataset takes of a range query: `dataset.ts`'s `DatasetDoc` says it for each dataset. */
export interface RangeRules {
  readonly id: string;
  /** The intervals it serves, when not all; the first is the default. */
  readonly intervals?: readonly RequestInterval[];
  /** The settings it takes (`tz`, `agg`, `columns`); by default all. */
  readonly settings?: readonly RangeSetting[];
  /** The formats it answers in; by default all. */
  readonly formats?: readonly Format[];
  /**
   * Why it does not take the settings and formats it does not: a setting it does not take is then
   * refused by name (`invalid_parameter`), else it is an unknown parameter.
   */
  readonly declines?: string;
  /** A shorter longest span for some of its requests. */
  readonly spanLimit?: SpanLimit;
}

/** The validated range and options, plus whether each bound carried a fraction of a second. */
export interface ParsedRange extends RangeRequest {
  readonly startFractional: boolean;
  readonly endFractional: boolean;
  /** The interval as asked (`meta.interval`): `1h`, or the period of a `1d` range. */
  readonly asked: RequestInterval;
  readonly zone: Zone;
  readonly agg: Aggregate;
  /** The fields asked for with `columns`, in the order given; undefined for all. */
  readonly columns: readonly string[] | undefined;
}

/**
 * Parses and validates a dataset query; throws a 400 HttpError. `streams` says whether the
 * answer's format streams (CSV, Parquet), which may then span `MAX_STREAM_DAYS` at 1h.
 */
export function parseRangeQuery(
  params: URLSearchParams,
  extras: Readonly<Record<string, DatasetParameter>> = {},
  streams: (options: Readonly<Record<string, unknown>>) => boolean = () => false,
  rules?: RangeRules,
): ParsedRange {
  const taken = rules?.settings ?? ALL_SETTINGS;
  const named = rules?.declines === undefined ? taken : ALL_SETTINGS;
  checkNames(params, ["start", "end", "interval", ...named, ...Object.keys(extras)]);
  const options = parseOptions(params, extras);
  refuseDeclined(params, options, rules);
  const settings = parseOptions(params, SETTING_PARAMETERS);
  const zone = settings.tz as Zone;
  const start = inZone(instant(params, "start"), zone);
  const end = inZone(instant(params, "end"), zone);
  const asked = parseInterval(params.get("interval") ?? rules?.intervals?.[0] ?? "1h", rules);
  const interval: Interval = asked === "1h" ? "1h" : "1d";
  const agg = settings.agg as Aggregate;
  // `mean`, the default, is what an hour is of itself: tools that send every default are served.
  if (interval === "1h" && agg !== "mean") {
    throw badRequest(
      "invalid_parameter",
      `Query parameter 'agg' applies to intervals of a day or longer (${PERIODS.join(", ")}), not to 1h.`,
    );
  }
  checkSpan(start.ms, end.ms, interval, streams(options));
  const limit = rules?.spanLimit;
  if (limit !== undefined && limit.applies(interval, options) && end.ms - start.ms > limit.days * DAY_MS) {
    throw badRequest(
      "range_too_large",
      `The range spans more than ${limit.days} days, the longest allowed ${limit.which}. ` +
        "Split it into several requests, or ask for interval 1d.",
    );
  }
  const columns = columnsOf(settings);
  return {
    start: start.ms,
    end: end.ms,
    interval,
    options,
    startFractional: start.fractional,
    endFractional: end.fractional,
    asked,
    ...(interval === "1d" ? { period: asked as Period } : {}),
    zone,
    agg,
    columns,
  };
}

const ALL_SETTINGS = ["tz", "agg", "columns"] as const;

/** A dataset that says why refuses the settings and formats it does not take by name. */
export function refuseDeclined(
  params: URLSearchParams,
  options: Readonly<Record<string, unknown>>,
  rules: RangeRules | undefined,
): void {
  if (rules?.declines === undefined) return;
  const taken = rules.settings ?? ALL_SETTINGS;
  const declined: string[] = ALL_SETTINGS.filter((name) => params.has(name) && !taken.includes(name));
  const format = options.format as Format | undefined;
  if (format !== undefined && rules.formats !== undefined && !rules.formats.includes(format))
    declined.push(`format=${format}`);
  if (declined.length > 0) {
    throw badRequest(
      "invalid_parameter",
      `${rules.id} does not take ${declined.map((n) => `'${n}'`).join(", ")}: ${rules.declines}.`,
    );
  }
}

/** The names a validated `columns` value gives, in order; undefined without it. */
export function columnsOf(settings: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  return settings.columns === undefined ? undefined : (settings.columns as string).split(",");
}

// A bare date means 00:00 in the request's zone.
function inZone(at: Instant, zone: Zone): Instant {
  return at.date === true ? { ...at, ms: at.ms - ZONE_OFFSET_MS[zone] } : at;
}

/** missing_params (of `required`), unknown_parameter, then a repeated one (invalid_parameter). */
export function checkNames(
  params: URLSearchParams,
  allowed: readonly string[],
  required: readonly string[] = ["start", "end"],
): void {
  const names = [...new Set(params.keys())];
  const missing = required.filter((name) => (params.get(name) ?? "") === "");
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
      `Unknown query parameter${unknown.length > 1 ? "s" : ""}: ${unknown.map((n) => `'${echo(n)}'`).join(", ")}. ` +
        `Allowed: ${allowed.join(", ")}.`,
    );
  }
  const repeated = names.find((name) => params.getAll(name).length > 1);
  if (repeated !== undefined) {
    throw badRequest(
      "invalid_parameter",
      `Query parameter '${echo(repeated)}' is given more than once; give it once.`,
    );
  }
}

/** Each extra parameter's value, or its default when absent; throws invalid_parameter. */
export function parseOptions(
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
        `Query parameter '${name}' must be ${extra.expected}, not '${echo(raw)}'.`,
      );
    }
    options[name] = result.output;
  }
  return options;
}

/** The interval asked for, if the dataset serves it; throws unsupported_interval. */
export function parseInterval(raw: string, rules: RangeRules | undefined): RequestInterval {
  const interval = v.safeParse(IntervalSchema, raw);
  if (rules?.intervals !== undefined && !(interval.success && rules.intervals.includes(interval.output))) {
    throw badRequest(
      "unsupported_interval",
      `Unsupported interval '${echo(raw)}'. Supported intervals of ${rules.id}: ${rules.intervals.join(", ")}.`,
    );
  }
  if (!interval.success) {
    throw badRequest(
      "unsupported_interval",
      `Unsupported interval '${echo(raw)}'. Supported intervals: ${REQUEST_INTERVALS.join(", ")}.`,
    );
  }
  return interval.output;
}

function checkSpan(start: number, end: number, interval: Interval, streams: boolean): void {
  if (end <= start) {
    throw badRequest("bad_request", "'end' must be after 'start'; the range is [start, end).");
  }
  if (streams && interval === "1h") {
    if (end - start > MAX_STREAM_DAYS * DAY_MS) {
      throw badRequest(
        "range_too_large",
        `The range spans more than ${MAX_STREAM_DAYS} days, the longest allowed at interval 1h in csv and parquet. ` +
          "Split it into several requests.",
      );
    }
    return;
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
  const said = echo(raw);
  const problem = result.issues[0].message;
  const detail =
    problem === "no_offset"
      ? `'${name}' has no UTC offset: '${said}'. Add 'Z' for UTC or an offset such as '+02:00' (e.g. '${said}Z').`
      : problem === "impossible"
        ? `'${name}' is not a real date-time: '${said}'.`
        : problem === "out_of_range"
          ? `'${name}' is outside the years 1900 to 9999 (in UTC, after its offset): '${said}'.`
          : `'${name}' is not an ISO-8601 date-time: '${said}'. Use e.g. 2024-01-01T00:00:00Z or 2024-01-01.`;
  throw badRequest("invalid_datetime", detail);
}
