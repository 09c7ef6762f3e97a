/**
 * The shipped outlook judged on a store's own history (`npm run evaluate-outlook -- --store
 * DATA_DIR`): for every day, the outlook as the API issues it `as_of` 06:00 SAST that day (from
 * what the store had received by then: its revisions undone, the forecast issues seen by then) is
 * scored hour by hour against the store's newest values, beside the two baselines made of what the
 * store held then. Nothing is fitted: it judges the formula the service ships on the hours a store
 * gained after that formula was fitted (a deployment's own months, or downloads replayed through
 * the pull, each at its time).
 */
import { statSync } from "node:fs";
import { outlookReader } from "../src/datasets/outlook-reader.ts";
import { ForecastIssues } from "../src/forecasts/forecast-issues.ts";
import { issueState, sameHourShare, shedding } from "../src/features/outlook-inputs.ts";
import { storeAsOf } from "../src/store/as-of-view.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { periodStart } from "../src/periods.ts";
import { DAY_MS, formatInstant, HOUR_MS, SAST_OFFSET_MS } from "../src/time.ts";
import { CannotEvaluate } from "./evaluation-files.ts";
import { ISSUE_HOUR_SAST, type ScoredHour } from "./outlook-evaluation.ts";

/** The outlooks a store's history gives, and the days they were issued on. */
export interface StoreOutlooks {
  readonly scored: ScoredHour[];
  /** The first and last day (SAST) an outlook was issued and scored on, and how many. */
  readonly first: number;
  readonly last: number;
  readonly issues: number;
}

/** Every outlook issued as of 06:00 SAST each day of the store's history, scored on its newest values. */
export function storeOutlooks(dir: string): StoreOutlooks {
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true)
    throw new CannotEvaluate(`${dir} is not a folder: pass a DATA_DIR`);
  const store = createReadingStore({ dir, cacheDays: 10_000 });
  const held = store.refresh();
  if (held.unavailable !== undefined)
    throw new CannotEvaluate(`the store in ${dir} cannot be read: ${held.unavailable.message}`);
  if (held.manifest.size === 0 || held.lastActual === null)
    throw new CannotEvaluate(`${dir} holds no stored hour`);
  if (held.sample)
    throw new CannotEvaluate(`${dir} holds generated sample data, not Eskom's: there is nothing to judge`);
  const began = store.history().began;
  if (began === null) throw new CannotEvaluate(`the store in ${dir} has no recorded ingest to replay`);
  const reader = outlookReader(store, new ForecastIssues(dir), () => held.lastActual!);
  const scored: ScoredHour[] = [];
  const days: number[] = [];
  const sastDay = (t: number) => periodStart(t, "1d", SAST_OFFSET_MS);
  for (let day = sastDay(began); day <= sastDay(held.lastActual); day += DAY_MS) {
    const issuedAt = day + ISSUE_HOUR_SAST * HOUR_MS;
    if (issuedAt < began) continue;
    const issued = reader.issued(issuedAt);
    if (issued.t0 === null || issued.hours.length === 0) continue;
    const then = storeAsOf(store, store.history(), issuedAt);
    const state = issueState(then, issued.t0)!;
    let any = false;
    for (const h of issued.hours) {
      const outcome = shedding(store, h.hour);
      if (outcome === null) continue;
      any = true;
      scored.push({
        issuedAt,
        hour: h.hour,
        lead: h.lead,
        shed: outcome === 1,
        probability: h.probability,
        persistence: state.now,
        sameHour: sameHourShare(then, state, h.hour),
      });
    }
    if (any) days.push(day);
  }
  if (days.length === 0)
    throw new CannotEvaluate(
      `no outlook issued as of a day in the store's history (since its first ingest, ${formatInstant(began)}) has an hour with a known outcome: that needs a week of load-reduction values received before the day, and values of the hours after it received since. A store filled at once (npm run ingest) has no past to replay: judge its exports with npm run evaluate-outlook -- DIR`,
    );
  return { scored, first: days[0]!, last: days.at(-1)!, issues: days.length };
}
