/**
 * The load-shedding outlook's formula (docs/api.md: "Load-shedding outlook"): for each hour after
 * the newest hour with an actual load-reduction value, the chance that manual load reduction is
 * above 0 in it, a logistic function of the inputs of `outlook-inputs.ts` with weights of its own
 * for each bucket of lead (how far past that newest hour the target is). The weights are fitted
 * by `npm run evaluate-outlook -- --write` on the real years (`outlook-fit.ts`), which also scores
 * the formula walk-forward: each year by a fit of the years before it alone.
 */
import { STRESS_BANDS, type StressBand, stressBand } from "./stress-formula.ts";
import { OUTLOOK_INPUTS, type OutlookInput } from "./outlook-inputs.ts";

/** The formula's version, in every answer's `meta`. */
export const OUTLOOK_VERSION = "v2";

/** The buckets of lead, in hours past the newest actual hour; the last is open-ended. */
export const LEAD_BUCKETS = [
  { name: "1-24", from: 1, to: 24 },
  { name: "25-72", from: 25, to: 72 },
  { name: "73-168", from: 73, to: 168 },
  { name: "over 168", from: 169, to: Infinity },
] as const;
export type LeadBucket = (typeof LEAD_BUCKETS)[number]["name"];

/** The bucket of a lead, in whole hours (at least 1). */
export function bucketOf(lead: number): LeadBucket {
  return LEAD_BUCKETS.find((b) => lead >= b.from && lead <= b.to)!.name;
}

/** One bucket's fitted formula. */
export interface BucketFit {
  readonly intercept: number;
  readonly weights: Readonly<Record<OutlookInput, number>>;
}

/** The fitted formula: a bucket's fit for each bucket of lead. */
export type OutlookFit = Readonly<Record<LeadBucket, BucketFit>>;

/** The chance of load reduction, from the inputs (in `OUTLOOK_INPUTS` order) at a lead. */
export function outlookProbability(fit: OutlookFit, inputs: readonly number[], lead: number): number {
  const bucket = fit[bucketOf(lead)];
  let z = bucket.intercept;
  OUTLOOK_INPUTS.forEach((name, i) => (z += bucket.weights[name] * inputs[i]!));
  return 1 / (1 + Math.exp(-z));
}

/** The grid-stress band a probability falls in (low below 0.3, moderate, high from 0.6, critical from 0.8). */
export function outlookBand(probability: number): StressBand {
  return stressBand(probability)!;
}

/** The bands, lowest first, with the probability from which each begins. */
export const OUTLOOK_BANDS = STRESS_BANDS;
