/**
 * The grid-stress formulas as Markdown, written from the constants of `stress-v2.ts`,
 * `stress-v2-fit.ts` and `stress-formula.ts` so the published text cannot drift from the
 * computation: the grid-stress operation's description in the OpenAPI document (what `/docs`
 * shows), and the tables of docs/api.md's "Grid stress" section, between `<!-- stress: NAME -->`
 * and `<!-- /stress -->` (`npm run field-tables` rewrites them; a test compares them).
 */
import {
  DEMAND_LIGHT_MW,
  DEMAND_PEAK_MW,
  FORECAST_MISS_FULL,
  MARGIN_COMFORTABLE,
  OCGT_FULL_MW,
  RE_LOOKBACK_DAYS,
  RE_MIN_DAYS,
  STRESS_BANDS,
  STRESS_VERSION,
  STRESS_WEIGHTS,
  type StressComponent,
} from "./stress-formula.ts";
import { calibrationTable, evaluationTable, type StressEvaluation } from "./stress-report.ts";
import {
  COEFFICIENTS,
  DECLINE_FULL,
  DIESEL_FULL_MW,
  EVENING_PEAK_SAST,
  FULL_HOURS,
  GAP_SPAN,
  INTERRUPTIBLE_FULL_MW,
  MEANS,
  STRESS_V2,
  V2_COMPONENTS,
  type V2Component,
} from "./stress-v2.ts";
import { V2_EVALUATION } from "./stress-v2-fit.ts";

const fixed2 = (n: number) => n.toFixed(2);

// Each component's formula over stored column names (`clamp` limits to [0, 1]).
const FORMULAS: Readonly<Record<StressComponent, string>> = {
  reserve_margin:
    "`available = installed_eskom_capacity − total_pclf − total_uclf − total_oclf`, or for an hour without them `available_capacity_incl_non_comm_units`; " +
    "`margin = (available − residual_demand) / available`; " +
    `\`clamp((${fixed2(MARGIN_COMFORTABLE)} − margin) / ${fixed2(MARGIN_COMFORTABLE)})\`, and 1 when \`available ≤ 0\``,
  ocgt_ramp: `\`clamp((eskom_ocgt_generation + dispatchable_ipp_ocgt) / ${OCGT_FULL_MW})\`: how far the diesel peakers are ramped up`,
  residual_demand: `\`clamp((residual_demand − ${DEMAND_LIGHT_MW}) / (${DEMAND_PEAK_MW} − ${DEMAND_LIGHT_MW}))\``,
  renewable_shortfall:
    "`clamp((usual − total_re) / usual)`, `usual` = mean `total_re` at the same UTC hour over the " +
    `previous ${RE_LOOKBACK_DAYS} days (at least ${RE_MIN_DAYS} stored; else null)`,
  forecast_error: `\`clamp(((residual_demand − residual_forecast) / residual_demand) / ${FORECAST_MISS_FULL})\`: demand above its forecast`,
};

/** The components, heaviest first (the order docs/api.md lists them in). */
const BY_WEIGHT = (Object.keys(STRESS_WEIGHTS) as StressComponent[]).sort(
  (a, b) => STRESS_WEIGHTS[b] - STRESS_WEIGHTS[a],
);

/** v1's table of components, weights and formulas (prettier aligns it in docs/api.md). */
export function stressFormulaTable(): string {
  return [
    "| component (weight) | formula |",
    "| --- | --- |",
    ...BY_WEIGHT.map((name) => `| \`${name}\` (${fixed2(STRESS_WEIGHTS[name])}) | ${FORMULAS[name]} |`),
  ].join("\n");
}

const SUPPLY =
  "`supplied = thermal_generation + nuclear_generation + eskom_gas_generation + eskom_ocgt_generation + hydro_water_generation + pumped_water_generation + dispatchable_ipp_ocgt + international_imports`";

// Each v2 component's formula over stored column names, from the constants of stress-v2.ts.
const V2_FORMULAS: Readonly<Record<V2Component, string>> = {
  diesel_day: `\`clamp(mean(eskom_ocgt_generation + dispatchable_ipp_ocgt) / ${DIESEL_FULL_MW})\` over the 24 hours to this one (this one included)`,
  diesel_week: `the same over the 168 hours to this one`,
  supply_gap: `${SUPPLY}; \`best_day\` = the largest \`supplied\` of the 24 hours before; \`clamp(0.5 + ((residual_forecast − best_day) / best_day) / ${GAP_SPAN})\``,
  fleet_decline: `\`best_week\` = the largest \`supplied\` of the 168 hours before; \`clamp(((best_week − best_day) / best_week) / ${DECLINE_FULL})\``,
  pumped_storage_low: `\`clamp(1 − (drakensberg_gen_unit_hours / ${FULL_HOURS.drakensberg} + palmiet_gen_unit_hours / ${FULL_HOURS.palmiet} + ingula_gen_unit_hours / ${FULL_HOURS.ingula}) / 3)\`: the upper reservoirs' mean emptiness`,
  interruptible_load: `\`clamp((ils_usage + ios_excl_ils_and_mlr) / ${INTERRUPTIBLE_FULL_MW})\` (a missing one counts 0; null when both are)`,
  evening_peak: `1 from ${EVENING_PEAK_SAST[0]}:00 to ${EVENING_PEAK_SAST[1]}:59 SAST, else 0`,
};

const fixed4 = (n: number) => n.toFixed(4);

/** v2's table of components, coefficients, means and formulas. */
export function stressV2FormulaTable(fit = { coefficients: COEFFICIENTS, means: MEANS }): string {
  return [
    "| component | coefficient | when missing | formula |",
    "| --- | --- | --- | --- |",
    `| intercept | ${fixed4(fit.coefficients.intercept)} | | |`,
    ...V2_COMPONENTS.map(
      (name) =>
        `| \`${name}\` | ${fixed4(fit.coefficients[name])} | ${name === "evening_peak" ? "never" : fixed4(fit.means[name])} | ${V2_FORMULAS[name]} |`,
    ),
  ].join("\n");
}

const V2_VALUE =
  "`value = σ(intercept + Σ coefficient × component)`, `σ(z) = 1 / (1 + e^−z)`: the probability that load is being " +
  "shed in the hour (manual load reduction above 0). A component whose inputs are missing (fewer than half of a " +
  "window's hours stored, or a column absent) is served null and counts at its mean over the fitting hours " +
  '("when missing"); the value is null only when every component but `evening_peak` is. The coefficients were ' +
  "fitted by logistic regression (L2 penalty 1) on every hour of the real exports of 2018 and April 2020 to June " +
  "2022, labelled by manual load reduction; the labels are read by the fit only, never by the formula, which " +
  "reads neither manual load reduction nor residual demand (which adds it back).";

/** The generated tables docs/api.md carries, by block name. */
export function stressTables(
  fit = { coefficients: COEFFICIENTS, means: MEANS },
  evaluation: StressEvaluation = V2_EVALUATION,
): Record<string, string> {
  return {
    "v2-formula": stressV2FormulaTable(fit),
    "v2-evaluation": evaluationTable(evaluation),
    "v2-calibration": calibrationTable(evaluation.calibration),
    "v1-formula": stressFormulaTable(),
  };
}

const BLOCK = /<!-- stress: (\S+) -->\n[\s\S]*?<!-- \/stress -->/g;

/** `doc` with every `<!-- stress: NAME -->` block rewritten; throws on a name it does not know. */
export function withStressTables(
  doc: string,
  tables: Readonly<Record<string, string>> = stressTables(),
): string {
  return doc.replace(BLOCK, (_all, name: string) => {
    const table = tables[name];
    if (table === undefined) throw new Error(`docs/api.md: no stress table is named ${name}`);
    return `<!-- stress: ${name} -->\n\n${table}\n\n<!-- /stress -->`;
  });
}

/** Both formulas in full and v2's evaluation, for the grid-stress operation's description in the OpenAPI document. */
export function stressReference(): string {
  const bands = STRESS_BANDS.map(([name, from]) => `\`${name}\` from ${from}`).join(", ");
  return [
    `**Formula (version \`${STRESS_V2}\`, the default)**, with stored column names (\`clamp\` limits to [0, 1]):`,
    stressV2FormulaTable(),
    V2_VALUE,
    "**How v2 does on hours it was not fitted on** (walk-forward: each year is scored by a fit of the years " +
      "before it alone; ROC AUC, 0.5 is chance):",
    evaluationTable(V2_EVALUATION),
    `**Formula (version \`${STRESS_VERSION}\`, with \`version=v1\`)**:`,
    stressFormulaTable(),
    "`value = Σ weight × component / Σ weight` over the components that could be computed; a " +
      "component is null when any of its inputs is missing, and the value is null only when every " +
      `component is. \`total_re\` is \`Total RE\`, else the sum of wind, PV, CSP and other RE.`,
    `Both versions: \`band\`: ${bands}. Neither reads manual load reduction; v2 reads interruptible load ` +
      "(ILS and IOS), an emergency measure short of shedding, and v1 does not. Any change to a formula bumps its version.",
  ].join("\n\n");
}
