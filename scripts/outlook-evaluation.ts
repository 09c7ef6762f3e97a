/**
 * The load-shedding outlook's walk-forward evaluation on the real Eskom files
 * (`npm run evaluate-outlook`): the exports go into a temporary store; for every day an outlook is
 * issued at 06:00 SAST from the hours the portal would have published by then (through the last
 * hour of the day three days before: it runs three to four days behind), and each of its hours is
 * scored against what then happened (manual load reduction above 0), beside two baselines made of
 * the same information: persistence (the newest known hour's state) and the share of the 7 newest
 * known days with load reduction at the same hour. The days are scored too, as `interval=1d` serves
 * them: the chance of any load reduction in the day and the hours to expect.
 *
 * Walk-forward: the hours of a calendar year (SAST) are scored by a fit of the hours before it
 * alone, and a year is scored only when those hold at least `MIN_TRAINING_SHED_HOURS` hours of
 * load reduction. The formula the service ships is fitted on every hour.
 */
import { rocAuc } from "../src/features/evaluation.ts";
import { fitLogistic } from "../src/features/logistic.ts";
import {
  issueState,
  OUTLOOK_INPUTS,
  type OutlookInput,
  type OutlookSource,
  outlookInputs,
  sameHourShare,
  shedding,
  storedForecast,
} from "../src/features/outlook-inputs.ts";
import { HORIZON_HOURS, outlookDays } from "../src/features/outlook.ts";
import {
  bucketOf,
  LEAD_BUCKETS,
  type LeadBucket,
  outlookBand,
  type OutlookFit,
  outlookProbability,
} from "../src/features/outlook-model.ts";
import type {
  BucketScore,
  DayScore,
  OutlookEvaluation,
  Reliability,
} from "../src/features/outlook-report.ts";
import {
  formulaWeights,
  mixedChance,
  RECORD_DAYS,
  sameHourForecast,
} from "../src/features/outlook-record.ts";
import type { Reading } from "../src/source/reading.ts";
import { CannotEvaluate, withExportStore } from "./evaluation-files.ts";
import { groupBy } from "../src/group-by.ts";
import { periodStart } from "../src/periods.ts";
import { DAY_MS, dayStart, HOUR_MS, SAST_OFFSET_MS } from "../src/time.ts";

/** Days the portal runs behind: an outlook issued on day D knows the hours through D−3's last. */
export const PORTAL_LAG_DAYS = 3;
/** The hour (SAST) the evaluation's outlooks are issued, after the portal's daily batch. */
export const ISSUE_HOUR_SAST = 6;
/** The hours of load reduction a fit must have before a year is scored with it. */
export const MIN_TRAINING_SHED_HOURS = 200;
/** The L2 penalty of every fit: small against the hundreds of thousands of scored hours. */
export const L2 = 1;

/** One scored hour of one issued outlook. */
export interface Example {
  readonly issuedAt: number;
  readonly hour: number;
  readonly lead: number;
  readonly inputs: readonly number[];
  readonly shed: boolean;
  readonly persistence: number;
  readonly sameHour: number;
}

const year = (hour: number) => new Date(hour + SAST_OFFSET_MS).getUTCFullYear();
// The first instant of an hour's day in South Africa.
const sastDay = (hour: number) => periodStart(hour, "1d", SAST_OFFSET_MS);

/** Every outlook hour with a known outcome, issued each day from `from` to `to` (UTC ms). */
export function examples(source: OutlookSource, from: number, to: number): Example[] {
  const out: Example[] = [];
  for (let day = sastDay(from); day < to; day += DAY_MS) {
    const issuedAt = day + ISSUE_HOUR_SAST * HOUR_MS;
    const t0 = day - (PORTAL_LAG_DAYS - 1) * DAY_MS - HOUR_MS;
    const state = issueState(source, t0);
    if (state === null) continue;
    for (let hour = t0 + HOUR_MS; hour <= issuedAt + HORIZON_HOURS * HOUR_MS; hour += HOUR_MS) {
      const outcome = shedding(source, hour);
      if (outcome === null) continue;
      const sameHour = sameHourShare(source, state, hour);
      out.push({
        issuedAt,
        hour,
        lead: (hour - t0) / HOUR_MS,
        inputs: outlookInputs(source, state, hour, storedForecast(source, hour), sameHour),
        shed: outcome === 1,
        persistence: state.now,
        sameHour,
      });
    }
  }
  return out;
}

/** Every example of the exports at `paths`, ingested into one temporary store in that order. */
export function loadExamples(paths: readonly string[]): Example[] {
  return withExportStore(paths, (store, days) => {
    // Every stored hour by its instant, read once: the examples read each hour many times.
    const hours = new Map<number, Reading>();
    for (const key of days) {
      const day = store.day(key)!;
      day.hours.forEach((reading, h) => reading !== undefined && hours.set(day.start + h * HOUR_MS, reading));
    }
    const source = { reading: (hour: number) => hours.get(hour) };
    const all = examples(source, dayStart(days[0]!) + 7 * DAY_MS, dayStart(days.at(-1)!) + DAY_MS);
    if (all.length === 0)
      throw new CannotEvaluate(
        "no outlook can be issued and scored: that needs a week of hours with a manual load-reduction value (Manual Load_Reduction(MLR)) before an issue, and hours with one after it",
      );
    return all;
  });
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));

// The distinct hours with load reduction among some examples (an hour is scored at many leads).
const shedHours = (rows: readonly Example[]) => new Set(rows.filter((e) => e.shed).map((e) => e.hour)).size;

/** The formula fitted to some examples, each bucket of lead on its own hours. */
export function fitOutlook(train: readonly Example[]): OutlookFit {
  const fits = LEAD_BUCKETS.map(({ name }) => {
    const rows = train.filter((e) => bucketOf(e.lead) === name);
    const fit = fitLogistic(
      rows.map((e) => e.inputs),
      rows.map((e) => e.shed),
      { l2: L2 },
    );
    const weights = Object.fromEntries(OUTLOOK_INPUTS.map((n, i) => [n, round(fit.weights[i]!, 4)]));
    return [name, { intercept: round(fit.intercept, 4), weights: weights as Record<OutlookInput, number> }];
  });
  return Object.fromEntries(fits) as OutlookFit;
}

/** One hour of an issued outlook with its outcome: what the scores and tables read. */
export interface ScoredHour {
  readonly issuedAt: number;
  readonly hour: number;
  readonly lead: number;
  readonly shed: boolean;
  /** The outlook's chance, and the baselines' (persistence, the same hour of 7 days). */
  readonly probability: number;
  readonly persistence: number;
  readonly sameHour: number;
}

/**
 * A scored example: the formula's chance from the fit of the years before its own, and the
 * outlook's, the formula and the same-hour forecast weighed by their record (`withRecord`).
 */
interface Scored extends Example, ScoredHour {
  readonly formula: number;
}

/**
 * The outlook's chances as `issueOutlook` serves them, from examples with the formula's chance:
 * each issue's weights from the record of the issues of the `RECORD_DAYS` days before it, on
 * their examples up to its newest actual hour (the hours known when it is issued).
 */
export function withRecord<T extends Example & { formula: number }>(
  rows: readonly T[],
): (T & { probability: number })[] {
  const byIssue = groupBy(rows, (e) => e.issuedAt);
  const recorded = (e: T) => ({
    lead: e.lead,
    formula: e.formula,
    sameHour: sameHourForecast(e.sameHour),
    shed: e.shed,
  });
  return [...byIssue].flatMap(([issuedAt, own]) => {
    const t0 = own[0]!.hour - own[0]!.lead * HOUR_MS;
    const days = Array.from({ length: RECORD_DAYS }, (_, k) =>
      (byIssue.get(issuedAt - (k + 1) * DAY_MS) ?? []).filter((e) => e.hour <= t0).map(recorded),
    );
    const weights = formulaWeights(days);
    return own.map((e) => ({
      ...e,
      probability: mixedChance(weights, e.lead, e.formula, sameHourForecast(e.sameHour)),
    }));
  });
}

// Rows by the calendar year (SAST) of their hour, earliest year first.
const byYear = <T extends { hour: number }>(rows: readonly T[]) =>
  new Map([...groupBy(rows, (e) => year(e.hour))].sort((a, b) => a[0] - b[0]));

// How far before a year its hours' issues and their records reach, and after it its hours' issues.
const YEAR_MARGIN_MS = (RECORD_DAYS + 14) * DAY_MS;

/**
 * The years scored, each by a fit of the examples before it: the formula's chances, and the
 * outlook's from them and their record (the issues before the year's first scored by its fit too,
 * as the service's record is scored by the formula it ships).
 */
export function walkForward(all: readonly Example[]): Scored[] {
  return [...byYear(all)].flatMap(([y]) => {
    const start = Date.UTC(y, 0, 1) - SAST_OFFSET_MS;
    const end = Date.UTC(y + 1, 0, 1) - SAST_OFFSET_MS;
    const train = all.filter((e) => e.hour < start);
    if (shedHours(train) < MIN_TRAINING_SHED_HOURS) return [];
    const fit = fitOutlook(train);
    const near = all.filter((e) => e.issuedAt >= start - YEAR_MARGIN_MS && e.issuedAt < end + YEAR_MARGIN_MS);
    const scored = near.map((e) => ({ ...e, formula: outlookProbability(fit, e.inputs, e.lead) }));
    return withRecord(scored).filter((e) => year(e.hour) === y);
  });
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** What a score or the reliability table needs of a scored hour or day. */
interface Outcome {
  readonly shed: boolean;
}

function score<T extends Outcome>(scored: readonly T[], p: (e: T) => number) {
  const ps = scored.map(p);
  const labels = scored.map((e) => e.shed);
  return {
    auc: round(rocAuc(ps, labels), 4),
    brier: round(mean(ps.map((x, i) => (x - (labels[i] ? 1 : 0)) ** 2)), 4),
  };
}

/** Mean probability against observed share, per tenth of probability. */
export function reliability(scored: readonly (Outcome & { probability: number })[]): Reliability[] {
  return Array.from({ length: 10 }, (_, tenth) => {
    const bin = scored.filter((e) => Math.min(9, Math.floor(e.probability * 10)) === tenth);
    return {
      tenth,
      count: bin.length,
      predicted: bin.length === 0 ? null : round(mean(bin.map((e) => e.probability)), 4),
      observed: bin.length === 0 ? null : round(mean(bin.map((e) => (e.shed ? 1 : 0))), 4),
    };
  });
}

function bucketScore(bucket: LeadBucket, scored: readonly ScoredHour[]): BucketScore {
  return {
    bucket,
    hours: scored.length,
    shedHours: scored.filter((e) => e.shed).length,
    outlook: score(scored, (e) => e.probability),
    persistence: score(scored, (e) => e.persistence),
    sameHour: score(scored, (e) => e.sameHour),
  };
}

/** One day (SAST) of one issued outlook, as `interval=1d` serves it, beside what happened. */
export interface ScoredDay extends Outcome {
  readonly year: number;
  /** Its first hour's lead: the days' buckets are the hours'. */
  readonly lead: number;
  readonly hours: number;
  /** The served chance of any load reduction in the day (`outlookDays`), and its baselines'. */
  readonly probability: number;
  readonly persistence: number;
  readonly sameHour: number;
  /** The served hours to expect, the baselines', and the hours that had load reduction. */
  readonly expectedHours: number;
  readonly persistenceHours: number;
  readonly sameHourHours: number;
  readonly shedHours: number;
}

/**
 * Every day of every scored outlook, each from its hours with a known outcome: the served chance
 * and hours to expect (`outlookDays` of `src/features/outlook.ts`, the code `interval=1d` runs),
 * the same made of each baseline's hourly values, and whether the day had load reduction.
 */
export function scoredDays(scored: readonly ScoredHour[]): ScoredDay[] {
  const days = groupBy(scored, (e) => `${e.issuedAt} ${sastDay(e.hour)}`);
  return [...days.values()].map((rows) => {
    const served = (p: (e: ScoredHour) => number) =>
      outlookDays(
        rows.map((e) => ({ hour: e.hour, lead: e.lead, probability: p(e), band: outlookBand(p(e)) })),
        sastDay,
      )[0]!;
    const outlook = served((e) => e.probability);
    const persistence = served((e) => e.persistence);
    const sameHour = served((e) => e.sameHour);
    const shedHours = rows.filter((e) => e.shed).length;
    return {
      year: year(rows[0]!.hour),
      lead: rows[0]!.lead,
      hours: rows.length,
      shed: shedHours > 0,
      probability: outlook.probability,
      persistence: persistence.probability,
      sameHour: sameHour.probability,
      expectedHours: outlook.expectedHours,
      persistenceHours: persistence.expectedHours,
      sameHourHours: sameHour.expectedHours,
      shedHours,
    };
  });
}

function dayScore(bucket: LeadBucket, days: readonly ScoredDay[]): DayScore {
  // Root mean square error: the hours to expect are a mean, which squared error rewards.
  const error = (p: (d: ScoredDay) => number) =>
    round(Math.sqrt(mean(days.map((d) => (p(d) - d.shedHours) ** 2))), 3);
  return {
    bucket,
    days: days.length,
    shedDays: days.filter((d) => d.shed).length,
    outlook: score(days, (d) => d.probability),
    persistence: score(days, (d) => d.persistence),
    sameHour: score(days, (d) => d.sameHour),
    hoursError: {
      outlook: error((d) => d.expectedHours),
      persistence: error((d) => d.persistenceHours),
      sameHour: error((d) => d.sameHourHours),
    },
  };
}

/** Rows per bucket of lead (an hour's, or a day's first hour's). */
const inBucket = <T extends { lead: number }>(rows: readonly T[], name: LeadBucket) =>
  rows.filter((e) => bucketOf(e.lead) === name);

// Each bucket's scores and reliability.
const bucketsOf = (scored: readonly ScoredHour[]) =>
  LEAD_BUCKETS.map(({ name }) => ({
    ...bucketScore(name, inBucket(scored, name)),
    reliability: reliability(inBucket(scored, name)),
  }));

/** The whole evaluation: per bucket of lead over every scored year, and per year; by hour and by day. */
export function evaluateOutlook(all: readonly Example[]): OutlookEvaluation {
  const scored = walkForward(all);
  if (scored.length === 0) {
    const held = [...byYear(all).keys()].join(", ");
    throw new CannotEvaluate(
      `no year can be scored: a year is scored by a fit of the years before it once those hold ${MIN_TRAINING_SHED_HOURS} hours of load reduction (the exports hold ${held}, with ${shedHours(all)} hours of it)`,
    );
  }
  return summarise(scored);
}

/** The scores and tables of some scored hours: per bucket of lead, over all and per year; by hour and by day. */
export function summarise(scored: readonly ScoredHour[]): OutlookEvaluation {
  const days = scoredDays(scored);
  const scoredByYear = byYear(scored);
  const years = [...scoredByYear.keys()];
  return {
    years,
    buckets: bucketsOf(scored),
    perYear: years.map((y) => ({ year: y, buckets: bucketsOf(scoredByYear.get(y)!) })),
    days: LEAD_BUCKETS.map(({ name }) => ({
      ...dayScore(name, inBucket(days, name)),
      reliability: reliability(inBucket(days, name)),
    })),
    daysPerYear: years.map((y) => ({
      year: y,
      buckets: LEAD_BUCKETS.map(({ name }) =>
        dayScore(
          name,
          inBucket(
            days.filter((d) => d.year === y),
            name,
          ),
        ),
      ),
    })),
  };
}
