/**
 * The load-shedding outlook as issued at an instant (docs/api.md: "Load-shedding outlook"): from
 * the stored hours as they stood then, every hour from the one after the newest hour with an actual
 * load-reduction value to 168 hours after the instant, each with the chance of manual load
 * reduction (`outlook-model.ts`), its lead and its band; per day, the chance of any load reduction
 * and the hours to expect.
 */
import { groupBy } from "../group-by.ts";
import { DAY_MS, HOUR_MS } from "../time.ts";
import { issueState, type OutlookSource, outlookInputs, shedding } from "./outlook-inputs.ts";
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

/** The outlook's hours, or null when the 7 days before `t0` hold no load-reduction value. */
export function issueOutlook(source: OutlookSource, request: OutlookRequest): OutlookHour[] | null {
  const state = issueState(source, request.t0);
  if (state === null) return null;
  const out: OutlookHour[] = [];
  const last = Math.floor((request.issuedAt + HORIZON_HOURS * HOUR_MS) / HOUR_MS) * HOUR_MS;
  for (let hour = request.t0 + HOUR_MS; hour <= last; hour += HOUR_MS) {
    const lead = (hour - request.t0) / HOUR_MS;
    const inputs = outlookInputs(source, state, hour, request.forecast(hour));
    const probability = outlookProbability(request.fit, inputs, lead);
    out.push({ hour, lead, probability, band: outlookBand(probability) });
  }
  return out;
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
