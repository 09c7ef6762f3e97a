/**
 * The load-shedding outlook as issued at an instant (docs/api.md: "Load-shedding outlook"): from
 * the stored hours as they stood then, every hour from the one after the newest hour with an actual
 * load-reduction value to 168 hours after the instant, each with the chance of manual load
 * reduction (the fitted formula of `outlook-model.ts` and the same hour of the last week, weighed by
 * how each did lately: `outlook-record.ts`), its lead and its band; per day, the chance of any load
 * reduction and the hours to expect.
 */
import { groupBy } from "../group-by.ts";
import { DAY_MS, HOUR_MS } from "../time.ts";
import { issueState, type OutlookSource, outlookInputs, sameHourShare, shedding } from "./outlook-inputs.ts";
import {
  type FormulaWeights,
  formulaWeights,
  mixedChance,
  RECORD_DAYS,
  type RecordedHour,
  sameHourForecast,
} from "./outlook-record.ts";
import { outlookBand, outlookProbability, type OutlookFit } from "./outlook-model.ts";
import type { StressBand } from "./stress-formula.ts";

/** How far past the instant it is issued the outlook reaches. */
export const HORIZON_HOURS = 168;
/** How far back from the instant the newest actual hour is looked for. */
export const SEARCH_DAYS = 60;

/** One hour of the outlook. */
export interface OutlookHour {
  readonly hour: number;
  /** Hours past the newest actual hour. */
  readonly lead: number;
  readonly probability: number;
  readonly band: StressBand;
}

/**
 * The newest hour at or before `at` with an actual load-reduction value, within `SEARCH_DAYS` of
 * `at` (an older one says nothing of the coming week); `newestStored` is where the search starts.
 */
export function newestActualHour(source: OutlookSource, at: number, newestStored: number): number | null {
  const start = Math.floor(Math.min(at, newestStored) / HOUR_MS) * HOUR_MS;
  for (let hour = start; hour > at - SEARCH_DAYS * DAY_MS; hour -= HOUR_MS) {
    if (shedding(source, hour) !== null) return hour;
  }
  return null;
}

/** What an outlook is issued from. */
export interface OutlookRequest {
  /** The newest hour with an actual load-reduction value. */
  readonly t0: number;
  /** The instant it is issued: its hours end `HORIZON_HOURS` after it. */
  readonly issuedAt: number;
  readonly fit: OutlookFit;
  /** Eskom's contracted-demand forecast of an hour, as known when issued (null: none). */
  readonly forecast: (hour: number) => number | null;
}

/** One hour's two forecasts: the formula's chance and the same-hour forecast. */
interface Forecasts {
  readonly hour: number;
  readonly lead: number;
  readonly formula: number;
  readonly sameHour: number;
}

// The hours of the outlook from `t0` issued at `issuedAt`, to `until` at most, each with its two
// forecasts; null when the 7 days before `t0` hold no load-reduction value.
function forecasts(
  source: OutlookSource,
  request: OutlookRequest,
  t0: number,
  issuedAt: number,
  until = Infinity,
) {
  const state = issueState(source, t0);
  if (state === null) return null;
  const out: Forecasts[] = [];
  const last = Math.min(until, Math.floor((issuedAt + HORIZON_HOURS * HOUR_MS) / HOUR_MS) * HOUR_MS);
  for (let hour = t0 + HOUR_MS; hour <= last; hour += HOUR_MS) {
    const lead = (hour - t0) / HOUR_MS;
    const share = sameHourShare(source, state, hour);
    const inputs = outlookInputs(source, state, hour, request.forecast(hour), share);
    const formula = outlookProbability(request.fit, inputs, lead);
    out.push({ hour, lead, formula, sameHour: sameHourForecast(share) });
  }
  return out;
}

/**
 * The record of an outlook (`outlook-record.ts`): the outlooks issued 1 to `RECORD_DAYS` days
 * before it, each from its newest actual hour as it then was (as many days before `t0`), on their
 * hours up to `t0` whose outcome is known.
 */
function record(source: OutlookSource, request: OutlookRequest): RecordedHour[][] {
  const { t0, issuedAt } = request;
  const days: RecordedHour[][] = [];
  for (let k = 1; k <= RECORD_DAYS; k++) {
    const earlier = forecasts(source, request, t0 - k * DAY_MS, issuedAt - k * DAY_MS, t0);
    const known: RecordedHour[] = [];
    for (const h of earlier ?? []) {
      const outcome = shedding(source, h.hour);
      if (outcome !== null) known.push({ ...h, shed: outcome === 1 });
    }
    days.push(known);
  }
  return days;
}

/** An issued outlook: its hours, and the formula's weight in each bucket from its record. */
export interface IssuedOutlook {
  readonly hours: OutlookHour[];
  readonly weights: FormulaWeights;
}

/** The outlook's hours, or null when the 7 days before `t0` hold no load-reduction value. */
export function issueOutlook(source: OutlookSource, request: OutlookRequest): IssuedOutlook | null {
  const own = forecasts(source, request, request.t0, request.issuedAt);
  if (own === null) return null;
  const weights = formulaWeights(record(source, request));
  const hours = own.map(({ hour, lead, formula, sameHour }) => {
    const probability = mixedChance(weights, lead, formula, sameHour);
    return { hour, lead, probability, band: outlookBand(probability) };
  });
  return { hours, weights };
}

/** One day of the outlook: the chance of any load reduction in it, and the hours to expect. */
export interface OutlookDay {
  /** The day's first instant. */
  readonly start: number;
  /** The day's hours the outlook covers (fewer than 24 at its ends). */
  readonly hours: number;
  /** The highest hourly chance: load reduction comes in blocks, its evening hours the likeliest. */
  readonly probability: number;
  /** The sum of the hourly chances. */
  readonly expectedHours: number;
  readonly band: StressBand;
}

/** The outlook's hours per day, days beginning at `dayStartOf(hour)`. */
export function outlookDays(
  hours: readonly OutlookHour[],
  dayStartOf: (hour: number) => number,
): OutlookDay[] {
  return [...groupBy(hours, (h) => dayStartOf(h.hour))].map(([start, day]) => {
    const probability = Math.max(...day.map((h) => h.probability));
    return {
      start,
      hours: day.length,
      probability,
      expectedHours: day.reduce((s, h) => s + h.probability, 0),
      band: outlookBand(probability),
    };
  });
}
