/**
 * The inputs of the load-shedding outlook (docs/api.md: "Load-shedding outlook"), read from the
 * stored hours as they stood when it was issued. Everything it reads of the past ends at the
 * newest hour with an actual load-reduction value (`t0`): the recent history of load reduction
 * (the past of the answer is a fair input of a forecast), diesel burn and the demand Eskom met.
 * Of the hours ahead it reads only Eskom's demand forecast for the target hour.
 */
import { columnName, requireColumn } from "../source/columns.ts";
import type { Reading } from "../source/reading.ts";
import { DAY_MS, HOUR_MS, SAST_OFFSET_MS } from "../time.ts";

/** The stored hours the inputs are read from (a store, or a store as of an instant). */
export interface OutlookSource {
  reading(hour: number): Reading | undefined;
}

const MLR = requireColumn("manual_load_reduction_mlr");
const CONTRACTED = requireColumn("rsa_contracted_demand");
const CONTRACTED_FORECAST = requireColumn("rsa_contracted_forecast");
const OCGT_ESKOM = requireColumn("eskom_ocgt_generation");
const OCGT_IPP = requireColumn("dispatchable_ipp_ocgt");

/** The stored columns the inputs read. */
export const OUTLOOK_COLUMNS = [MLR, CONTRACTED, CONTRACTED_FORECAST, OCGT_ESKOM, OCGT_IPP].map(columnName);

/** The names of the inputs, in the order of the fitted weights. */
export const OUTLOOK_INPUTS = [
  "same_hour_7d",
  "share_7d",
  "share_28d",
  "share_90d",
  "now",
  "same_hour_last",
  "evening",
  "weekend",
  "winter",
  "demand_gap",
  "diesel_7d",
  "log_lead",
] as const;
export type OutlookInput = (typeof OUTLOOK_INPUTS)[number];

/** How fast what the newest hours say fades with the lead, in hours. */
export const PERSISTENCE_HOURS = 48;

const value = (reading: Reading | undefined, column: number) => {
  const v = reading?.[column];
  return v === undefined || Number.isNaN(v) ? null : v;
};

/** Whether manual load reduction was above 0 in an hour: 1, 0, or null when not known. */
export function shedding(source: OutlookSource, hour: number): 0 | 1 | null {
  const mlr = value(source.reading(hour), MLR);
  return mlr === null ? null : mlr > 0 ? 1 : 0;
}

// The share of known hours with load reduction among `hours` (null when none is known).
function share(source: OutlookSource, hours: Iterable<number>): number | null {
  let known = 0;
  let shed = 0;
  for (const hour of hours) {
    const s = shedding(source, hour);
    if (s === null) continue;
    known++;
    shed += s;
  }
  return known === 0 ? null : shed / known;
}

function* span(last: number, count: number, step = HOUR_MS): Generator<number> {
  for (let i = 0; i < count; i++) yield last - i * step;
}

/** What the issue's newest hours say, the same for every target hour. */
export interface IssueState {
  /** The newest hour with an actual load-reduction value. */
  readonly t0: number;
  readonly share7: number;
  readonly share28: number;
  readonly share90: number;
  readonly now: 0 | 1;
  /** The most contracted demand met in an hour of the last 7 days, load reduction added back (MW). */
  readonly peak7: number | null;
  /** Mean diesel (Eskom and IPP OCGT) output over the last 7 days, in GW. */
  readonly diesel7: number;
}

/** The state at `t0`, or null when the 7 days before it hold no load-reduction value. */
export function issueState(source: OutlookSource, t0: number): IssueState | null {
  const now = shedding(source, t0);
  const share7 = share(source, span(t0, 168));
  if (now === null || share7 === null) return null;
  let peak: number | null = null;
  let diesel = 0;
  let dieselHours = 0;
  for (const hour of span(t0, 168)) {
    const reading = source.reading(hour);
    const met = value(reading, CONTRACTED);
    if (met !== null) peak = Math.max(peak ?? 0, met + (value(reading, MLR) ?? 0));
    const eskom = value(reading, OCGT_ESKOM);
    if (eskom !== null) {
      diesel += eskom + (value(reading, OCGT_IPP) ?? 0);
      dieselHours++;
    }
  }
  return {
    t0,
    share7,
    share28: share(source, span(t0, 672)) ?? share7,
    share90: share(source, span(t0, 2160)) ?? share7,
    now,
    peak7: peak,
    diesel7: dieselHours === 0 ? 0 : diesel / dieselHours / 1000,
  };
}

// How far back from `t` its hour of day was last known: whole days, at or before `t0`.
const knownDaysBack = (state: IssueState, t: number) => Math.ceil((t - state.t0) / DAY_MS) * DAY_MS;

/**
 * The share of the 7 newest known days with load reduction at `t`'s hour of day (the share of
 * the 7 days before `t0` when none of them is known): also the outlook's baseline of that name.
 */
export function sameHourShare(source: OutlookSource, state: IssueState, t: number): number {
  return share(source, span(t - knownDaysBack(state, t), 7, DAY_MS)) ?? state.share7;
}

// Log-odds of a share of `n` hours, kept finite (half an hour added to each side).
const logOdds = (share: number, n: number) => Math.log((share * n + 0.5) / ((1 - share) * n + 0.5));

/**
 * The inputs for the target hour `t` (after `state.t0`), in the order of `OUTLOOK_INPUTS`;
 * `forecast` is Eskom's contracted-demand forecast for `t` (null when none is known), and
 * `sameHour` its `sameHourShare`, for a caller that needs that share too.
 */
export function outlookInputs(
  source: OutlookSource,
  state: IssueState,
  t: number,
  forecast: number | null,
  sameHour = sameHourShare(source, state, t),
) {
  const lead = (t - state.t0) / HOUR_MS;
  const last = shedding(source, t - knownDaysBack(state, t)) ?? state.now;
  const fade = Math.exp(-lead / PERSISTENCE_HOURS);
  const local = new Date(t + SAST_OFFSET_MS);
  const hourOfDay = local.getUTCHours();
  const weekday = local.getUTCDay();
  const month = local.getUTCMonth();
  const gap =
    forecast === null || state.peak7 === null || state.peak7 <= 0 ? 0 : forecast / state.peak7 - 0.9;
  const inputs: Record<OutlookInput, number> = {
    same_hour_7d: logOdds(sameHour, 7),
    share_7d: logOdds(state.share7, 168),
    share_28d: logOdds(state.share28, 672),
    share_90d: logOdds(state.share90, 2160),
    now: state.now * fade,
    same_hour_last: last * fade,
    evening: hourOfDay >= 17 && hourOfDay <= 21 ? 1 : 0,
    weekend: weekday === 0 || weekday === 6 ? 1 : 0,
    winter: month >= 4 && month <= 7 ? 1 : 0,
    demand_gap: gap,
    diesel_7d: state.diesel7,
    log_lead: Math.log(lead),
  };
  return OUTLOOK_INPUTS.map((name) => inputs[name]);
}

/** Eskom's contracted-demand forecast stored for an hour, or null. */
export function storedForecast(source: OutlookSource, hour: number): number | null {
  return value(source.reading(hour), CONTRACTED_FORECAST);
}
