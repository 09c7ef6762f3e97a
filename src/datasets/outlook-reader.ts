/**
 * How the load-shedding outlook (`load-shedding-outlook.ts`) is read: issued from the stored hours
 * as they stood at `as_of` (or now, issued at the start of the current hour), with Eskom's
 * contracted-demand forecast for each hour ahead from the demand file's week-ahead forecast, else
 * from the newest 3-month forecast issue seen by then. The same instant gives the same answer.
 */
import { formatInstant, HOUR_MS } from "../time.ts";
import { formatZoned, periodStart, ZONE_OFFSET_MS } from "../periods.ts";
import { forecastHours } from "../forecasts/forecast-query.ts";
import { type ForecastIssues, type IssueSource, NO_ISSUES } from "../forecasts/forecast-issues.ts";
import {
  HORIZON_HOURS,
  issueOutlook,
  newestActualHour,
  type OutlookHour,
  outlookDays,
} from "../features/outlook.ts";
import { OUTLOOK_FIT } from "../features/outlook-fit.ts";
import { storedForecast } from "../features/outlook-inputs.ts";
import { OUTLOOK_VERSION } from "../features/outlook-model.ts";
import type { FormulaWeights } from "../features/outlook-record.ts";
import { Lru } from "../cache/lru.ts";
import { coveredRange, type DataRecord, type DatasetDoc, type RangeRequest } from "../records/dataset.ts";
import type { RecordReader, RecordView } from "../records/record-reader.ts";
import { type ReadingStore, StoreUnavailableError } from "../store/reading-store.ts";
import { storeAsOf } from "../store/as-of-view.ts";
import { storeAsOfFloor } from "./readings-reader.ts";

/** The outlook's dataset: its hours are those of its issue, not a range asked for. */
export interface OutlookDataset extends DatasetDoc {
  readonly kind: "outlook";
  /** The stored columns its inputs read. */
  readonly reads: readonly string[];
  /** The portal file of the forecast issues it reads where the demand file has no forecast. */
  readonly file: string;
}

/** An outlook as issued at an instant. */
export interface Issued {
  readonly issuedAt: number;
  /** The newest hour with an actual load-reduction value, or null when there is none to start from. */
  readonly t0: number | null;
  readonly hours: readonly OutlookHour[];
  /** The formula's weight in each bucket of lead, from the outlook's record (null: no outlook). */
  readonly weights: FormulaWeights | null;
  /** The hours ahead whose demand forecast came from the demand file, and from a 3-month issue. */
  readonly forecastHours: { readonly weekAhead: number; readonly issue: number };
  /** When the 3-month forecast issue used was first seen, or null when none was. */
  readonly forecastIssue: number | null;
}

/** The hours an outlook covers, [start, end): from the hour after its newest actual hour. */
export function issuedWindow(issued: Issued): { start: number; end: number } {
  const end = Math.floor((issued.issuedAt + HORIZON_HOURS * HOUR_MS) / HOUR_MS) * HOUR_MS + HOUR_MS;
  return issued.t0 === null ? { start: end, end } : { start: issued.t0 + HOUR_MS, end };
}

// The outlook issued at `issuedAt` from `source` (the store then) and the forecast issues then.
function issue(source: ReadingStore, issues: IssueSource, issuedAt: number): Issued {
  const last = source.refresh().lastActual;
  const t0 = last === null ? null : newestActualHour(source, issuedAt, last);
  const none = {
    issuedAt,
    t0,
    hours: [],
    weights: null,
    forecastHours: { weekAhead: 0, issue: 0 },
    forecastIssue: null,
  };
  if (t0 === null) return none;
  const to = Math.floor((issuedAt + HORIZON_HOURS * HOUR_MS) / HOUR_MS) * HOUR_MS + HOUR_MS;
  const ahead = new Map(
    forecastHours(issues, { from: t0 + HOUR_MS, to, asOf: issuedAt, mode: "latest" }).map((h) => [h.hour, h]),
  );
  // The demand file's week-ahead forecast of an hour, else the newest 3-month issue's.
  const forecastOf = (hour: number) => {
    const weekAhead = storedForecast(source, hour);
    if (weekAhead !== null) return { contracted: weekAhead, issuedAt: null };
    const fromIssue = ahead.get(hour);
    return fromIssue === undefined || Number.isNaN(fromIssue.contracted) ? null : fromIssue;
  };
  const forecast = (hour: number) => forecastOf(hour)?.contracted ?? null;
  const issued = issueOutlook(source, { t0, issuedAt, fit: OUTLOOK_FIT, forecast });
  if (issued === null) return none;
  const { hours, weights } = issued;
  // Where the forecasts of its own hours came from (its record reads those of hours gone by).
  const used = { weekAhead: 0, issue: 0 };
  let forecastIssue: number | null = null;
  for (const { hour } of hours) {
    const from = forecastOf(hour);
    if (from === null) continue;
    if (from.issuedAt === null) used.weekAhead++;
    else {
      used.issue++;
      forecastIssue = Math.max(forecastIssue ?? 0, from.issuedAt);
    }
  }
  return { issuedAt, t0, hours, weights, forecastHours: used, forecastIssue };
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));

/** A chance as the outlook serves it (4 decimals): the webhook's number is the API's. */
export const servedProbability = (p: number) => round(p, 4);

// The records of a piece: its hours at 1h, its days (in its zone) at 1d.
function records(issued: Issued, piece: RangeRequest): DataRecord[] {
  const offset = ZONE_OFFSET_MS[piece.zone ?? "UTC"];
  if (piece.interval === "1h") {
    const { from, to } = coveredRange(piece);
    return issued.hours
      .filter((h) => h.hour >= from && h.hour < to)
      .map((h) => ({
        ts: formatZoned(h.hour, offset),
        probability: servedProbability(h.probability),
        lead_h: h.lead,
        band: h.band,
      }));
  }
  // Every day the issue touches, its first and last in part (the range is the issue's own).
  return outlookDays(issued.hours, (hour) => periodStart(hour, "1d", offset)).map((d) => ({
    date: formatZoned(d.start, offset).slice(0, 10),
    probability: servedProbability(d.probability),
    expected_hours: round(d.expectedHours, 2),
    band: d.band,
    hours: d.hours,
  }));
}

/** What `meta` says of an issue, after `start` and `end`. */
function status(issued: Issued, range: RangeRequest): Record<string, unknown> {
  const offset = ZONE_OFFSET_MS[range.zone ?? "UTC"];
  return {
    issued_at: formatInstant(issued.issuedAt, issued.issuedAt % 1000 !== 0),
    newest_actual: issued.t0 === null ? null : formatZoned(issued.t0, offset),
    version: OUTLOOK_VERSION,
    inputs: {
      readings_as_of: formatInstant(issued.issuedAt, issued.issuedAt % 1000 !== 0),
      week_ahead_forecast_hours: issued.forecastHours.weekAhead,
      forecast_issue: issued.forecastIssue === null ? null : formatInstant(issued.forecastIssue, true),
      forecast_issue_hours: issued.forecastHours.issue,
      formula_weights:
        issued.weights === null
          ? null
          : Object.fromEntries(Object.entries(issued.weights).map(([b, w]) => [b, round(w, 4)])),
    },
  };
}

/** The reader of the outlook over the store and the forecast's issues; `now` is the clock. */
export function outlookReader(
  store: ReadingStore,
  kept: ForecastIssues,
  now: () => number,
): RecordReader & { issued(asOf: number | undefined): Issued } {
  // Issues by store version and instant: a poll, and a query parsed before its answer, ask again.
  const memo = new Lru<string, Issued>(64, () => 1);
  const issuedAt = (asOf: number | undefined) => asOf ?? Math.floor(now() / HOUR_MS) * HOUR_MS;
  function issued(asOf: number | undefined): Issued {
    const held = store.refresh();
    const at = issuedAt(asOf);
    const key = `${held.version}|${kept.version}|${asOf === undefined ? "now" : "as_of"}|${at}`;
    let found = memo.get(key);
    if (found === undefined) {
      const source = asOf === undefined ? store : storeAsOf(store, store.history(), asOf);
      // Generated issues belong to the sample store alone.
      const issues = kept.sample && !held.sample ? NO_ISSUES : kept;
      memo.set(key, (found = issue(source, issues, at)));
    }
    return found;
  }
  return {
    issued,
    snapshot() {
      const held = store.refresh();
      const hour = issuedAt(undefined);
      return {
        version: `${held.version}:${hour}:${kept.version}`,
        sample: held.sample,
        modified: held.modified,
        unavailable: held.unavailable === undefined ? undefined : new StoreUnavailableError(held.unavailable),
        tag: () => [held.version, kept.version],
        asOfFloor: () => storeAsOfFloor(store),
        view(asOf): RecordView {
          const then = issued(asOf);
          return {
            records: (piece) => records(then, piece),
            status: (range) => status(then, range),
            modified: held.modified,
          };
        },
        changed: () => store.changedSince(held.version),
      };
    },
  };
}
