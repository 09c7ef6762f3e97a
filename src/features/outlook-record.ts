/**
 * The outlook's own record (docs/api.md: "Load-shedding outlook", version 2): each hour's chance
 * is a weighted mean of two forecasts, the fitted formula (`outlook-model.ts`) and the share of the
 * 7 newest known days with load reduction at that hour of day, each weighted by how it did in the
 * 28 days before the outlook is issued, on the hours known by then. The formula learnt episodes of
 * days (2018 to 2022); when load reduction runs for months (2023) the same-hour share is right
 * where the formula is not, and its record shows it within days. Each lead's bucket keeps its own
 * record.
 */
import { bucketOf, LEAD_BUCKETS, type LeadBucket } from "./outlook-model.ts";

/** How many days of earlier outlooks an outlook's record holds. */
export const RECORD_DAYS = 28;

/**
 * The same-hour forecast: the share of the 7 newest known days with load reduction at the hour,
 * half a day added to each side (so that it is never 0 or 1, which a log loss cannot score).
 */
export const sameHourForecast = (share: number) => (7 * share + 0.5) / 8;

/** One hour of an earlier outlook, with what then happened. */
export interface RecordedHour {
  readonly lead: number;
  /** The formula's chance and the same-hour forecast for it. */
  readonly formula: number;
  readonly sameHour: number;
  readonly shed: boolean;
}

/** The weight of the formula per bucket of lead (the same-hour forecast has the rest). */
export type FormulaWeights = Readonly<Record<LeadBucket, number>>;

const logLoss = (p: number, shed: boolean) => -Math.log(Math.max(shed ? p : 1 - p, 1e-9));

/**
 * The formula's weight per bucket from the record: `days` holds, for each earlier outlook, its
 * hours known when this one is issued. In each bucket, each forecast's loss is the sum over those
 * outlooks of its mean log loss on their hours in the bucket (an outlook counts once, however many
 * of its hours are known: hours of one day are not independent), and its weight is proportional
 * to exp(−loss). Without a known hour in a bucket, the two weigh the same.
 */
export function formulaWeights(days: readonly (readonly RecordedHour[])[]): FormulaWeights {
  const weights = LEAD_BUCKETS.map(({ name }) => {
    let formula = 0;
    let sameHour = 0;
    for (const day of days) {
      const known = day.filter((h) => bucketOf(h.lead) === name);
      if (known.length === 0) continue;
      formula += known.reduce((s, h) => s + logLoss(h.formula, h.shed), 0) / known.length;
      sameHour += known.reduce((s, h) => s + logLoss(h.sameHour, h.shed), 0) / known.length;
    }
    // exp(−formula) / (exp(−formula) + exp(−sameHour)), without overflow.
    return [name, 1 / (1 + Math.exp(formula - sameHour))] as const;
  });
  return Object.fromEntries(weights) as Record<LeadBucket, number>;
}

/** The outlook's chance of an hour: the two forecasts by the formula's weight in its bucket. */
export function mixedChance(
  weights: FormulaWeights,
  lead: number,
  formula: number,
  sameHour: number,
): number {
  const w = weights[bucketOf(lead)];
  return w * formula + (1 - w) * sameHour;
}
