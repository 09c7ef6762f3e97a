/**
 * Serves `forecasts.demand` (docs/api.md: "Eskom's demand forecast") from the forecast issues, with
 * the datasets' range rules, formats, `as_of` and validators: the ETag hashes the request and the
 * issue index (which names every issue by its content hash), so a new issue changes it.
 */
import { ALL_ISSUES_MAX_DAYS, forecastDemand } from "../forecasts/forecast-dataset.ts";
import {
  DamagedForecastError,
  type ForecastIssues,
  type IssueSource,
  NO_ISSUES,
} from "../forecasts/forecast-issues.ts";
import {
  dailyForecastRecords,
  forecastHours,
  hourlyForecastRecords,
  type IssueMode,
} from "../forecasts/forecast-query.ts";
import { dayRange, DAY_MS, formatInstant } from "../time.ts";
import { recordsToCsv } from "./csv.ts";
import { AS_OF_PARAMETER, cacheControlAt, FORMAT_PARAMETER } from "./dataset-handler.ts";
import { SAMPLE_HEADERS, SCHEMA_VERSION } from "./dataset-envelope.ts";
import { badRequest, HttpError } from "./http-error.ts";
import type { Instant } from "./instant.ts";
import { chooseFormat, type Format } from "./negotiation.ts";
import { type ParsedRange, parseRangeQuery } from "./range-query.ts";
import type { Handler } from "./router.ts";
import { EntityTag } from "./entity-tag.ts";
import { send, VARY_ACCEPT } from "./send.ts";

const PARAMETERS = { format: FORMAT_PARAMETER, as_of: AS_OF_PARAMETER, ...forecastDemand.parameters };
const CSV_TYPE = "text/csv; charset=utf-8";

// The instant the request reads the issues as of: as_of, checked against the issues kept, or now.
function asOfFor(issues: IssueSource, asOf: Instant | undefined, now: number): number {
  if (asOf === undefined) return now;
  if (asOf.ms > now) {
    throw badRequest(
      "invalid_parameter",
      `'as_of' is in the future: ${formatInstant(asOf.ms, true)}. Ask for a past instant.`,
    );
  }
  const first = issues.index()[0];
  if (first === undefined || asOf.ms < Date.parse(first.issued_at)) {
    const since =
      first === undefined
        ? "no issue is kept yet"
        : `the first was seen at ${formatInstant(Date.parse(first.issued_at), true)}`;
    throw badRequest("invalid_parameter", `'as_of' is before the first forecast issue: ${since}.`);
  }
  return asOf.ms;
}

// The newest issue a request as of `asOf` reads, as UTC ms, or null.
function lastIssued(issues: IssueSource, asOf: number): number | null {
  const seen = issues.index().filter((entry) => Date.parse(entry.issued_at) <= asOf);
  return seen.length === 0 ? null : Date.parse(seen.at(-1)!.issued_at);
}

function filename(range: ParsedRange): string {
  const stamp = (ms: number) => formatInstant(ms).slice(0, 19).replace(/[-:]/g, "") + "Z";
  return `${forecastDemand.id}_${range.interval}_${stamp(range.start)}_${stamp(range.end)}.csv`;
}

// The body of one answer.
function render(
  sample: boolean,
  issues: IssueSource,
  range: ParsedRange,
  format: Format,
  asOf: number,
  asOfGiven?: Instant,
): string {
  const mode = range.options.issues as IssueMode;
  const { from, to } =
    range.interval === "1h" ? { from: range.start, to: range.end } : dayRange(range.start, range.end);
  const hours = forecastHours(issues, { from, to, asOf, mode });
  const records = range.interval === "1h" ? hourlyForecastRecords(hours) : dailyForecastRecords(hours, mode);
  if (format === "csv") return recordsToCsv(records, forecastDemand.fields[range.interval]);
  const last = lastIssued(issues, asOf);
  const meta = {
    dataset: forecastDemand.id,
    interval: range.interval,
    timezone: "UTC",
    schema_version: SCHEMA_VERSION,
    derived: forecastDemand.derived[range.interval],
    ...forecastDemand.meta(range.interval),
    start: formatInstant(range.start, range.startFractional),
    end: formatInstant(range.end, range.endFractional),
    issues: mode,
    last_issued: last === null ? null : formatInstant(last, last % 1000 !== 0),
    ...(asOfGiven === undefined ? {} : { as_of: formatInstant(asOfGiven.ms, asOfGiven.fractional) }),
    ...(sample ? { sample: true } : {}),
  };
  return JSON.stringify({ meta, data: records });
}

// A damaged issue is a 503, never a partial answer; anything else goes on as it is.
function answerFor(error: unknown): unknown {
  if (!(error instanceof DamagedForecastError)) return error;
  return new HttpError(
    503,
    "The stored forecast issues are damaged and are not served until they are repaired. Try again later.",
    { headers: { "Retry-After": "600" } },
  );
}

// What the datasets of the reading store offer and the forecast does not (yet): said, never ignored.
function refuseUnsupported(params: URLSearchParams, range: ParsedRange): void {
  if (range.asked !== "1h" && range.asked !== "1d") {
    throw badRequest(
      "unsupported_interval",
      `Unsupported interval '${range.asked}'. Supported intervals of ${forecastDemand.id}: 1h, 1d.`,
    );
  }
  const unsupported = ["tz", "agg", "columns"].filter((name) => params.has(name));
  if (range.options.format === "parquet") unsupported.push("format=parquet");
  if (unsupported.length > 0) {
    throw badRequest(
      "invalid_parameter",
      `${forecastDemand.id} does not take ${unsupported.map((n) => `'${n}'`).join(", ")}: its records are UTC, in JSON or CSV.`,
    );
  }
}

/** The handler of `forecasts.demand`, reading `issues`. */
export function forecastHandler(
  kept: ForecastIssues,
  options: { now?: () => number; sampleStore?: () => boolean } = {},
): Handler {
  const now = options.now ?? Date.now;
  return (req, reply, ctx) => {
    const range = parseRangeQuery(ctx.url.searchParams, PARAMETERS);
    refuseUnsupported(ctx.url.searchParams, range);
    if (
      range.options.issues === "all" &&
      range.interval === "1h" &&
      range.end - range.start > ALL_ISSUES_MAX_DAYS * DAY_MS
    ) {
      throw badRequest(
        "range_too_large",
        `The range spans more than ${ALL_ISSUES_MAX_DAYS} days, the longest allowed with issues=all at interval 1h ` +
          "(every hour has about one issue per day). Split it into several requests, or ask for interval 1d.",
      );
    }
    const format = chooseFormat(range.options.format as Format | undefined, req.headers.accept);
    try {
      // Generated issues belong to the sample store: beside real readings (a pull that replaced
      // the sample but could not bring Eskom's forecast yet) there is no forecast to serve.
      const issues = kept.sample && options.sampleStore?.() === false ? NO_ISSUES : kept;
      const given = range.options.as_of as Instant | undefined;
      const asOf = asOfFor(issues, given, now());
      // An empty forecast beside a generated sample store is part of that sample.
      const sample = issues.sample || (issues.index().length === 0 && options.sampleStore?.() === true);
      const etag = EntityTag.of(
        JSON.stringify([forecastDemand.id, SCHEMA_VERSION, range, format, issues.version, sample]),
        32,
      );
      const disposition: Record<string, string> =
        format === "csv" ? { "Content-Disposition": `attachment; filename="${filename(range)}"` } : {};
      const sent = send(req, reply, {
        body: { render: () => render(sample, issues, range, format, asOf, given) },
        contentType: format === "csv" ? CSV_TYPE : "application/json",
        etag,
        lastModified: lastIssued(issues, asOf),
        cacheControl: cacheControlAt(now()),
        vary: VARY_ACCEPT,
        headers: { ...disposition, ...(sample ? SAMPLE_HEADERS : {}) },
      });
      return sent?.catch((error: unknown) => {
        throw answerFor(error);
      });
    } catch (error) {
      throw answerFor(error);
    }
  };
}
