/**
 * Grid-stress v2's walk-forward evaluation on the real Eskom files: each export is ingested into
 * its own temporary store, the service computes both versions' hours there, and each hour is
 * labelled by manual load reduction (MLR > 0) and by the national stage history (stage > 0). The
 * labels are read here only; the formulas never see them.
 *
 * Walk-forward: the coefficients and means that score a calendar year are fitted on the hours
 * before it alone (2020 on 2018; 2021 on 2018 and 2020; 2022 on those and 2021). The coefficients
 * the service ships are fitted on every hour, and are out of sample for every later year.
 */
import { readFileSync } from "node:fs";
import { gridStressV2, stressHours } from "../src/datasets/grid-stress.ts";
import { rocAuc } from "../src/features/evaluation.ts";
import { fitLogistic } from "../src/features/logistic.ts";
import type { Calibration, PeriodScore, StressEvaluation } from "../src/features/stress-report.ts";
import {
  COEFFICIENTS,
  MEANS,
  V2_COMPONENTS,
  type V2Components,
  v2Value,
  v2Vector,
} from "../src/features/stress-v2.ts";
import { columns, requireColumn } from "../src/source/columns.ts";
import { valueAt } from "../src/source/reading.ts";
import { DAY_MS, dayStart, HOUR_MS } from "../src/time.ts";
import { CannotEvaluate, withExportStore } from "./evaluation-files.ts";

/** The L2 penalty of every fit: small against tens of thousands of hours, it only keeps rare inputs finite. */
export const L2 = 1;

/** One labelled hour of the real data. */
export interface LabelledHour {
  readonly hour: number;
  readonly components: V2Components;
  readonly v1: number | null;
  readonly mlr: boolean;
  readonly stage: boolean | null;
  /** Every stored column that does not carry the answer, NaN where missing. */
  readonly columns: Float64Array;
}

/** The fitted coefficients and means, as `stress-v2.ts` holds them. */
export interface V2Fit {
  readonly coefficients: typeof COEFFICIENTS;
  readonly means: typeof MEANS;
}

const MLR = requireColumn("manual_load_reduction_mlr");
// Columns the single-column baseline may not use: the label, and the demand figures that add it back.
const ANSWER = new Set(["manual_load_reduction_mlr", "residual_demand", "rsa_contracted_demand"]);
/** The columns the single-column baseline chooses from. */
export const CANDIDATE_COLUMNS = columns.map((c) => c.name).filter((name) => !ANSWER.has(name));
const CANDIDATES = CANDIDATE_COLUMNS.map(requireColumn);

/**
 * The national stage at any instant, from the history's rows (`"created_at","stage"`, SAST, newest
 * first, hours sometimes without a leading zero): null after the last change the history records.
 */
export function stageHistory(text: string): (at: number) => number | null {
  const changes = text
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) => {
      const [stamp = "", stage = ""] = line.split(",").map((cell) => cell.replace(/"/g, "").trim());
      const m = /^(\d{4}-\d{2}-\d{2}) (\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(stamp);
      const at =
        m === null ? NaN : Date.parse(`${m[1]}T${m[2]!.padStart(2, "0")}:${m[3]}:${m[4] ?? "00"}+02:00`);
      if (Number.isNaN(at) || !/^\d$/.test(stage))
        throw new CannotEvaluate(`the stage history has an unreadable row: ${line}`);
      return { at, stage: Number(stage) };
    })
    .sort((a, b) => a.at - b.at);
  const last = changes.at(-1)?.at ?? -Infinity;
  return (at) => {
    if (at > last) return null;
    let stage = 0;
    for (const change of changes) {
      if (change.at > at) break;
      stage = change.stage;
    }
    return stage;
  };
}

/** Every hour of the exports with an index value, as the service computes it, labelled. */
function labelledHours(paths: readonly string[], stageAt: (at: number) => number | null): LabelledHour[] {
  return withExportStore(paths, (store, days) => {
    const [from, to] = [dayStart(days[0]!), dayStart(days.at(-1)!) + DAY_MS];
    const v1 = new Map(stressHours(store, from, to).map((h) => [h.hour, h.value]));
    const out: LabelledHour[] = [];
    for (const { hour, inputs } of gridStressV2.hours(store, from, to)) {
      const reading = store.reading(hour)!;
      const mlr = valueAt(reading, MLR);
      if (mlr === null) continue; // unlabelled
      const stage = stageAt(hour + HOUR_MS / 2);
      out.push({
        hour,
        components: inputs.components,
        v1: v1.get(hour) ?? null,
        mlr: mlr > 0,
        stage: stage === null ? null : stage > 0,
        columns: Float64Array.from(CANDIDATES, (c) => reading[c]!),
      });
    }
    return out;
  });
}

/** Every labelled hour of the real exports, oldest first. */
export function loadLabelledHours(paths: { exports: readonly string[]; stages: string }): LabelledHour[] {
  const stageAt = stageHistory(readFileSync(paths.stages, "utf8"));
  const hours = labelledHours(paths.exports, stageAt);
  if (hours.length === 0)
    throw new CannotEvaluate(
      "the exports hold no hour with both a manual load-reduction value (Manual Load_Reduction(MLR)) and an index value",
    );
  return hours;
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));

/** v2's means and coefficients fitted to some hours (rounded as `stress-v2.ts` publishes them). */
export function fitV2(hours: readonly LabelledHour[]): V2Fit {
  const means = Object.fromEntries(
    V2_COMPONENTS.map((name) => {
      const present = hours.map((h) => h.components[name]).filter((c) => c !== null);
      return [name, present.length === 0 ? 0 : round(present.reduce((s, c) => s + c, 0) / present.length, 4)];
    }),
  ) as Record<(typeof V2_COMPONENTS)[number], number>;
  const fit = fitLogistic(
    hours.map((h) => v2Vector(h.components, means)),
    hours.map((h) => h.mlr),
    { l2: L2 },
  );
  const weights = Object.fromEntries(V2_COMPONENTS.map((name, i) => [name, round(fit.weights[i]!, 4)]));
  return {
    coefficients: { intercept: round(fit.intercept, 4), ...weights } as typeof COEFFICIENTS,
    means,
  };
}

// Years and months are South Africa's (SAST, UTC+2), as the exports' rows are.
const SAST_MS = 2 * HOUR_MS;
const sast = (hour: number) => new Date(hour + SAST_MS);
const year = (hour: number) => sast(hour).getUTCFullYear();

/** The evaluation years (SAST): every year with hours of load reduction before it to fit on. */
export function evaluationYears(hours: readonly LabelledHour[]): number[] {
  const firstShed = hours.reduce((first, h) => (h.mlr ? Math.min(first, year(h.hour)) : first), Infinity);
  return [...new Set(hours.map((h) => year(h.hour)))].filter((y) => y > firstShed).sort((a, b) => a - b);
}

/** An evaluated hour: v2's probability from the fit of the hours before its year, and the base rate. */
export interface ScoredHour extends LabelledHour {
  readonly v2: number;
  readonly baseRate: number;
}

/** Scores each evaluation year with a fit of the hours before it alone. */
export function walkForward(hours: readonly LabelledHour[]): ScoredHour[] {
  return evaluationYears(hours).flatMap((y) => {
    const start = Date.UTC(y, 0, 1) - SAST_MS;
    const train = hours.filter((h) => h.hour < start);
    const { coefficients, means } = fitV2(train);
    const baseRate = train.filter((h) => h.mlr).length / train.length;
    return hours
      .filter((h) => year(h.hour) === y)
      .map((h) => ({ ...h, v2: v2Value(h.components, coefficients, means)!, baseRate }));
  });
}

// AUC of a score against both labels, over the hours where the score is present.
function aucPair(hours: readonly ScoredHour[], score: (h: ScoredHour) => number | null) {
  const scored = hours.filter((h) => score(h) !== null && !Number.isNaN(score(h)!));
  const staged = scored.filter((h) => h.stage !== null);
  return {
    mlr: round(
      rocAuc(
        scored.map((h) => score(h)!),
        scored.map((h) => h.mlr),
      ),
      4,
    ),
    stage:
      staged.length === 0
        ? null
        : round(
            rocAuc(
              staged.map((h) => score(h)!),
              staged.map((h) => h.stage!),
            ),
            4,
          ),
  };
}

// The column whose AUC against MLR is furthest from 0.5 in these hours, either way round (a
// column that falls before shedding counts negated), over the columns present in 90% of them.
function bestSingleColumn(hours: readonly ScoredHour[]): PeriodScore["single"] {
  let best = { column: "", mlr: 0.5, stage: null as number | null };
  CANDIDATE_COLUMNS.forEach((name, i) => {
    const present = hours.filter((h) => !Number.isNaN(h.columns[i]!)).length;
    if (present < hours.length * 0.9) return;
    const up = aucPair(hours, (h) => h.columns[i]!);
    const sign = up.mlr >= 0.5 ? 1 : -1;
    const pair = sign > 0 ? up : aucPair(hours, (h) => -h.columns[i]!);
    if (pair.mlr > best.mlr) best = { column: sign > 0 ? name : `−${name}`, ...pair };
  });
  return best;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

// "2020 (Apr to Dec)", or "2021" for a whole year.
function periodName(hours: readonly ScoredHour[]): string {
  const first = sast(hours[0]!.hour);
  const last = sast(hours.at(-1)!.hour);
  const [a, b] = [first.getUTCMonth(), last.getUTCMonth()];
  return a === 0 && b === 11
    ? `${first.getUTCFullYear()}`
    : `${first.getUTCFullYear()} (${MONTHS[a]} to ${MONTHS[b]})`;
}

function periodScore(period: string, hours: readonly ScoredHour[]): PeriodScore {
  return {
    period,
    hours: hours.length,
    mlrHours: hours.filter((h) => h.mlr).length,
    stageHours: hours.filter((h) => h.stage === true).length,
    v2: aucPair(hours, (h) => h.v2),
    v1: aucPair(hours, (h) => h.v1),
    single: bestSingleColumn(hours),
  };
}

/** Brier scores and reliability by decile of v2's out-of-sample probabilities. */
export function calibration(hours: readonly ScoredHour[]): Calibration {
  const y = (h: ScoredHour) => (h.mlr ? 1 : 0);
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const sorted = [...hours].sort((a, b) => a.v2 - b.v2);
  const deciles = Array.from({ length: 10 }, (_, i) => {
    const bin = sorted.slice(
      Math.floor((i * sorted.length) / 10),
      Math.floor(((i + 1) * sorted.length) / 10),
    );
    return {
      hours: bin.length,
      predicted: round(mean(bin.map((h) => h.v2)), 4),
      observed: round(mean(bin.map(y)), 4),
    };
  });
  return {
    brier: round(mean(hours.map((h) => (h.v2 - y(h)) ** 2)), 4),
    baseBrier: round(mean(hours.map((h) => (h.baseRate - y(h)) ** 2)), 4),
    deciles,
  };
}

/** The whole evaluation of some labelled hours. */
export function evaluate(hours: readonly LabelledHour[]): StressEvaluation {
  const scored = walkForward(hours);
  const years = [...new Set(scored.map((h) => year(h.hour)))];
  if (years.length === 0) {
    const held = [...new Set(hours.map((h) => year(h.hour)))].join(", ");
    throw new CannotEvaluate(
      `no year can be scored: a year is scored by a fit of the years before it, which must hold load reduction (the exports hold ${held}, with ${hours.filter((h) => h.mlr).length} hours of it)`,
    );
  }
  return {
    periods: [
      ...years.map((y) => {
        const inYear = scored.filter((h) => year(h.hour) === y);
        return periodScore(periodName(inYear), inYear);
      }),
      periodScore("all evaluated hours", scored),
    ],
    calibration: calibration(scored),
  };
}
