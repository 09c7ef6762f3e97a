/**
 * The load-shedding outlook's walk-forward evaluation on the real Eskom files
 * (`npm run evaluate-outlook`): the exports go into a temporary store; for every day an outlook is
 * issued at 06:00 SAST from the hours the portal would have published by then (through the last
 * hour of the day three days before: it runs three to four days behind), and each of its hours is
 * scored against what then happened (manual load reduction above 0), beside two baselines made of
 * the same information: persistence (the newest known hour's state) and the share of the 7 newest
 * known days with load reduction at the same hour.
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
import { HORIZON_HOURS } from "../src/features/outlook.ts";
import {
  bucketOf,
  LEAD_BUCKETS,
  type LeadBucket,
  type OutlookFit,
  outlookProbability,
} from "../src/features/outlook-model.ts";
import type { BucketScore, OutlookEvaluation, Reliability } from "../src/features/outlook-report.ts";
import type { Reading } from "../src/source/reading.ts";
import { withExportStore } from "./stress-evaluation.ts";
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

/** Every outlook hour with a known outcome, issued each day from `from` to `to` (UTC ms). */
export function examples(source: OutlookSource, from: number, to: number): Example[] {
  const out: Example[] = [];
  // SAST midnights: the day of `from` in South Africa, as a UTC instant.
  const firstDay = Math.floor((from + SAST_OFFSET_MS) / DAY_MS) * DAY_MS - SAST_OFFSET_MS;
  for (let day = firstDay; day < to; day += DAY_MS) {
    const issuedAt = day + ISSUE_HOUR_SAST * HOUR_MS;
    const t0 = day - (PORTAL_LAG_DAYS - 1) * DAY_MS - HOUR_MS;
    const state = issueState(source, t0);
    if (state === null) continue;
    for (let hour = t0 + HOUR_MS; hour <= issuedAt + HORIZON_HOURS * HOUR_MS; hour += HOUR_MS) {
      const outcome = shedding(source, hour);
      if (outcome === null) continue;
      out.push({
        issuedAt,
        hour,
        lead: (hour - t0) / HOUR_MS,
        inputs: outlookInputs(source, state, hour, storedForecast(source, hour)),
        shed: outcome === 1,
        persistence: state.now,
        sameHour: sameHourShare(source, state, hour),
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
    return examples(source, dayStart(days[0]!) + 7 * DAY_MS, dayStart(days.at(-1)!) + DAY_MS);
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

/** A scored example: the outlook's probability from the fit of the years before its own. */
interface Scored extends Example {
  readonly probability: number;
}

/** The years scored, each by a fit of the examples before it. */
export function walkForward(all: readonly Example[]): Scored[] {
  const years = [...new Set(all.map((e) => year(e.hour)))].sort();
  return years.flatMap((y) => {
    const start = Date.UTC(y, 0, 1) - SAST_OFFSET_MS;
    const train = all.filter((e) => e.hour < start);
    if (shedHours(train) < MIN_TRAINING_SHED_HOURS) return [];
    const fit = fitOutlook(train);
    return all
      .filter((e) => year(e.hour) === y)
      .map((e) => ({ ...e, probability: outlookProbability(fit, e.inputs, e.lead) }));
  });
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

function score(scored: readonly Scored[], p: (e: Scored) => number) {
  const ps = scored.map(p);
  const labels = scored.map((e) => e.shed);
  return {
    auc: round(rocAuc(ps, labels), 4),
    brier: round(mean(ps.map((x, i) => (x - (labels[i] ? 1 : 0)) ** 2)), 4),
  };
}

/** Mean probability against observed share, per tenth of probability. */
export function reliability(scored: readonly Scored[]): Reliability[] {
  return Array.from({ length: 10 }, (_, tenth) => {
    const bin = scored.filter((e) => Math.min(9, Math.floor(e.probability * 10)) === tenth);
    return {
      tenth,
      hours: bin.length,
      predicted: bin.length === 0 ? null : round(mean(bin.map((e) => e.probability)), 4),
      observed: bin.length === 0 ? null : round(mean(bin.map((e) => (e.shed ? 1 : 0))), 4),
    };
  });
}

function bucketScore(bucket: LeadBucket | "all", scored: readonly Scored[]): BucketScore {
  return {
    bucket,
    hours: scored.length,
    shedHours: scored.filter((e) => e.shed).length,
    outlook: score(scored, (e) => e.probability),
    persistence: score(scored, (e) => e.persistence),
    sameHour: score(scored, (e) => e.sameHour),
  };
}

/** The whole evaluation: per bucket of lead over every scored year, and per year. */
export function evaluateOutlook(all: readonly Example[]): OutlookEvaluation {
  const scored = walkForward(all);
  const years = [...new Set(scored.map((e) => year(e.hour)))];
  const inBucket = (rows: readonly Scored[], name: LeadBucket) =>
    rows.filter((e) => bucketOf(e.lead) === name);
  return {
    years,
    buckets: LEAD_BUCKETS.map(({ name }) => ({
      ...bucketScore(name, inBucket(scored, name)),
      reliability: reliability(inBucket(scored, name)),
    })),
    perYear: years.map((y) => ({
      year: y,
      buckets: LEAD_BUCKETS.map(({ name }) =>
        bucketScore(
          name,
          inBucket(
            scored.filter((e) => year(e.hour) === y),
            name,
          ),
        ),
      ),
    })),
  };
}
