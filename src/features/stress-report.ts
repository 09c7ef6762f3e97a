/**
 * The shape of grid-stress v2's walk-forward evaluation (`npm run evaluate-stress`), and its
 * tables as Markdown: the same text in docs/api.md and in the endpoint's entry at /docs. The
 * numbers live in `stress-v2-fit.ts`, written by `npm run evaluate-stress -- --write`.
 */

/** ROC AUC of one score against the two labels; stage is null where the stage history is silent. */
export interface AucPair {
  readonly mlr: number;
  readonly stage: number | null;
}

/** One evaluated period: a calendar year of the export, or all of them pooled. */
export interface PeriodScore {
  readonly period: string;
  readonly hours: number;
  /** Hours with manual load reduction. */
  readonly mlrHours: number;
  /** Hours the national stage was above 0, of those the stage history covers. */
  readonly stageHours: number;
  readonly v2: AucPair;
  readonly v1: AucPair;
  /** The single stored column that did best in the period, chosen after the fact. */
  readonly single: AucPair & { readonly column: string };
}

/** One tenth of the hours by predicted probability: what v2 said, and how often load was shed. */
export interface ReliabilityBin {
  readonly hours: number;
  readonly predicted: number;
  readonly observed: number;
}

/** v2's probabilities, out of sample, against manual load reduction. */
export interface Calibration {
  readonly brier: number;
  /** The Brier score of always saying the training years' rate: what v2 must beat. */
  readonly baseBrier: number;
  readonly deciles: readonly ReliabilityBin[];
}

/** The whole evaluation. */
export interface StressEvaluation {
  readonly periods: readonly PeriodScore[];
  readonly calibration: Calibration;
}

const f3 = (x: number | null) => (x === null || Number.isNaN(x) ? "n/a" : x.toFixed(3));
const count = (n: number) => n.toLocaleString("en-US");

/** The per-period table: ROC AUC of v2, v1 and the best single column against MLR and stage. */
export function evaluationTable(evaluation: StressEvaluation): string {
  return [
    "| period | hours (MLR > 0 / stage > 0) | v2 AUC vs MLR / stage | v1 AUC vs MLR / stage | best single column, chosen after the fact: AUC vs MLR / stage |",
    "| --- | --- | --- | --- | --- |",
    ...evaluation.periods.map(
      (p) =>
        `| ${p.period} | ${count(p.hours)} (${count(p.mlrHours)} / ${count(p.stageHours)}) | ` +
        `**${f3(p.v2.mlr)}** / ${f3(p.v2.stage)} | ${f3(p.v1.mlr)} / ${f3(p.v1.stage)} | ` +
        `\`${p.single.column}\`: ${f3(p.single.mlr)} / ${f3(p.single.stage)} |`,
    ),
  ].join("\n");
}

/** The reliability table of v2's probabilities, by decile of prediction, with the Brier scores. */
export function calibrationTable(calibration: Calibration): string {
  return [
    `Brier score ${calibration.brier.toFixed(3)}, against ${calibration.baseBrier.toFixed(3)} for always ` +
      "saying the training years' rate of load reduction.",
    "",
    "| decile | hours | mean value | share of hours with MLR > 0 |",
    "| --- | --- | --- | --- |",
    ...calibration.deciles.map(
      (d, i) => `| ${i + 1} | ${count(d.hours)} | ${f3(d.predicted)} | ${f3(d.observed)} |`,
    ),
  ].join("\n");
}
