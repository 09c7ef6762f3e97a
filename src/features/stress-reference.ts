/**
 * The grid-stress formula as Markdown, written from the constants of `stress-formula.ts` so the
 * published text cannot drift from the computation: the grid-stress operation's description in
 * the OpenAPI document (what `/docs` shows), and the table docs/api.md's "Grid stress" section
 * holds (a test compares them).
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

/** The table of components, weights and formulas (prettier aligns it in docs/api.md). */
export function stressFormulaTable(): string {
  return [
    "| component (weight) | formula |",
    "| --- | --- |",
    ...BY_WEIGHT.map((name) => `| \`${name}\` (${fixed2(STRESS_WEIGHTS[name])}) | ${FORMULAS[name]} |`),
  ].join("\n");
}

/** The formula in full, for the grid-stress operation's description in the OpenAPI document. */
export function stressReference(): string {
  const bands = STRESS_BANDS.map(([name, from]) => `\`${name}\` from ${from}`).join(", ");
  return [
    `**Formula (version \`${STRESS_VERSION}\`)**, with stored column names (\`clamp\` limits to [0, 1]):`,
    stressFormulaTable(),
    "`value = Σ weight × component / Σ weight` over the components that could be computed; a " +
      "component is null when any of its inputs is missing, and the value is null only when every " +
      `component is. \`band\`: ${bands}. \`total_re\` is \`Total RE\`, else the sum of wind, PV, CSP ` +
      "and other RE. The load-reduction columns (MLR, ILS) are never read. Any change to the formula " +
      "bumps the version.",
  ].join("\n\n");
}
