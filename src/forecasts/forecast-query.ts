/**
 * The records of the forecast dataset (docs/api.md: "Eskom's demand forecast"): per target hour,
 * the newest issue that forecast it (as it stood at `as_of`), or every issue that did; per UTC day,
 * the day's mean and peak of each issue's hours (one Arquero rollup).
 */
import * as aq from "arquero";
import { round3 } from "../records/source-fields.ts";
import { dayKey, formatInstant } from "../time.ts";
import { type Issue, type IssueSource, issueSpan } from "./forecast-issues.ts";

/** Which issues a request reads: the newest for each hour, or all of them. */
export const ISSUE_MODES = ["latest", "all"] as const;
export type IssueMode = (typeof ISSUE_MODES)[number];

/** What a request asks of the issues: target hours in [from, to), issued at or before `asOf`. */
export interface ForecastQuery {
  readonly from: number;
  readonly to: number;
  readonly asOf: number;
  readonly mode: IssueMode;
}

/** One forecast of one target hour by one issue. */
export interface ForecastHour {
  readonly hour: number;
  readonly issuedAt: number;
  readonly contracted: number;
  readonly residual: number;
}

// The first index of `hours` (ascending) at or after `from`.
function lowerBound(hours: Float64Array, from: number): number {
  let lo = 0;
  let hi = hours.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (hours[mid]! < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Each hour of `issue` in [from, to).
function eachHour(issue: Issue, from: number, to: number, visit: (i: number, hour: number) => void): void {
  for (let i = lowerBound(issue.hours, from); i < issue.hours.length && issue.hours[i]! < to; i++) {
    visit(i, issue.hours[i]!);
  }
}

const forecastOf = (issue: Issue, i: number, hour: number): ForecastHour => ({
  hour,
  issuedAt: issue.issuedAt,
  contracted: issue.contracted[i]!,
  residual: issue.residual[i]!,
});

/** The forecasts a query reads, by target hour, then by issue (oldest first). */
export function forecastHours(store: IssueSource, query: ForecastQuery): ForecastHour[] {
  const { from, to, asOf, mode } = query;
  const entries = store.index().filter((entry) => {
    const span = issueSpan(entry);
    return Date.parse(entry.issued_at) <= asOf && span.last >= from && span.first < to;
  });
  const out: ForecastHour[] = [];
  if (mode === "all") {
    for (const entry of entries) {
      const issue = store.issue(entry);
      eachHour(issue, from, to, (i, hour) => out.push(forecastOf(issue, i, hour)));
    }
    return out.sort((a, b) => a.hour - b.hour || a.issuedAt - b.issuedAt);
  }
  const seen = new Set<number>();
  for (let e = entries.length - 1; e >= 0; e--) {
    const issue = store.issue(entries[e]!);
    eachHour(issue, from, to, (i, hour) => {
      if (seen.has(hour)) return;
      seen.add(hour);
      out.push(forecastOf(issue, i, hour));
    });
  }
  return out.sort((a, b) => a.hour - b.hour);
}

const mw = (value: number) => round3(value);

/** The hourly records. */
export function hourlyForecastRecords(
  hours: readonly ForecastHour[],
): Record<string, string | number | null>[] {
  return hours.map((h) => ({
    ts: formatInstant(h.hour),
    issued_at: formatInstant(h.issuedAt, h.issuedAt % 1000 !== 0),
    rsa_contracted_forecast_mw: mw(h.contracted),
    residual_forecast_mw: mw(h.residual),
  }));
}

/**
 * The daily records: per UTC day and issue (all issues), or per day of the newest forecasts,
 * whose `issued_at` is then the newest among the day's hours.
 */
export function dailyForecastRecords(
  hours: readonly ForecastHour[],
  mode: IssueMode,
): Record<string, string | number | null>[] {
  if (hours.length === 0) return [];
  const rows = hours.map((h) => ({
    date: dayKey(h.hour),
    issue: mode === "all" ? h.issuedAt : 0,
    issuedAt: h.issuedAt,
    contracted: Number.isNaN(h.contracted) ? null : h.contracted,
    residual: Number.isNaN(h.residual) ? null : h.residual,
  }));
  const days = aq
    .from(rows)
    .groupby("date", "issue")
    .rollup({
      issued_at: aq.op.max("issuedAt"),
      avg_contracted: aq.op.mean("contracted"),
      peak_contracted: aq.op.max("contracted"),
      avg_residual: aq.op.mean("residual"),
      peak_residual: aq.op.max("residual"),
      hours: aq.op.count(),
    })
    .orderby("date", "issue")
    .objects() as {
    date: string;
    issued_at: number;
    avg_contracted: number | undefined;
    peak_contracted: number | undefined;
    avg_residual: number | undefined;
    peak_residual: number | undefined;
    hours: number;
  }[];
  return days.map((d) => ({
    date: d.date,
    issued_at: formatInstant(d.issued_at, d.issued_at % 1000 !== 0),
    avg_rsa_contracted_forecast_mw: round3(d.avg_contracted),
    peak_rsa_contracted_forecast_mw: round3(d.peak_contracted),
    avg_residual_forecast_mw: round3(d.avg_residual),
    peak_residual_forecast_mw: round3(d.peak_residual),
    hours: d.hours,
  }));
}
