/**
 * How served fields are read from stored source columns (docs/data.md: "Loading real data" and the field
 * tables of the API reference), shared by every
 * dataset so that a field means the same thing wherever it appears.
 */
import { columnName, PROVENANCE_COLUMN, REPORT_COLUMNS, requireColumn } from "../source/columns.ts";
import { type Reading, valueAt } from "../source/reading.ts";
import { mw } from "./dataset.ts";

/** Catalog positions of the columns the datasets serve. */
export const COL = {
  residualDemand: requireColumn("residual_demand"),
  residualForecast: requireColumn("residual_forecast"),
  totalRe: requireColumn("total_re"),
  imports: requireColumn("international_imports"),
  exports: requireColumn("international_exports"),
  thermal: requireColumn("thermal_generation"),
  nuclear: requireColumn("nuclear_generation"),
  utilityGas: requireColumn("eskom_gas_generation"),
  utilityOcgt: requireColumn("eskom_ocgt_generation"),
  hydroWater: requireColumn("hydro_water_generation"),
  pumpedWaterGen: requireColumn("pumped_water_generation"),
  wind: requireColumn("wind"),
  pv: requireColumn("pv"),
  csp: requireColumn("csp"),
  otherRe: requireColumn("other_re"),
  manualLoadReduction: requireColumn("manual_load_reduction_mlr"),
  interruptibleLoad: requireColumn("ils_usage"),
  otherInterruptions: requireColumn("ios_excl_ils_and_mlr"),
  installedCapacity: requireColumn("installed_eskom_capacity"),
  plannedOutages: requireColumn("total_pclf"),
  unplannedOutages: requireColumn("total_uclf"),
  otherOutages: requireColumn("total_oclf"),
  availableCapacity: requireColumn("available_capacity_incl_non_comm_units"),
  availableCapacityWithRe: requireColumn("available_capacity_incl_non_comm_units_incl_total_re"),
  uclfOclf: requireColumn("hourly_uclf_oclf"),
  drakensbergHours: requireColumn("drakensberg_gen_unit_hours"),
  palmietHours: requireColumn("palmiet_gen_unit_hours"),
  ingulaHours: requireColumn("ingula_gen_unit_hours"),
  drakensbergMax: requireColumn("drakensberg_max_hours"),
  palmietMax: requireColumn("palmiet_max_hours"),
  ingulaMax: requireColumn("ingula_max_hours"),
  drakensbergMin: requireColumn("drakensberg_min_hours"),
  palmietMin: requireColumn("palmiet_min_hours"),
  ingulaMin: requireColumn("ingula_min_hours"),
} as const;

/**
 * The generation-mix fields (docs/api.md: "Generation mix") in served order: field, source column and
 * meaning. Their sum is the generation total of the renewable share.
 */
export const MIX_FIELDS = [
  ["thermal_mw", COL.thermal, "Coal", "Coal-fired generation (`Thermal Generation`)."],
  ["nuclear_mw", COL.nuclear, "Nuclear", "Nuclear generation."],
  [
    "utility_gas_mw",
    COL.utilityGas,
    "Gas",
    "Gas turbine output of the national utility (`Eskom Gas Generation`).",
  ],
  [
    "utility_ocgt_mw",
    COL.utilityOcgt,
    "OCGT (diesel)",
    "Open-cycle gas turbine (diesel peaking) output of the utility (`Eskom OCGT Generation`).",
  ],
  ["hydro_water_mw", COL.hydroWater, "Hydro", "Hydro generation."],
  ["pumped_water_gen_mw", COL.pumpedWaterGen, "Pumped storage", "Pumped-storage generation."],
  ["wind_mw", COL.wind, "Wind", "Wind generation."],
  ["pv_mw", COL.pv, "Solar PV", "Solar PV generation."],
  ["csp_mw", COL.csp, "CSP", "Concentrated solar power."],
  ["other_re_mw", COL.otherRe, "Other renewables", "Other renewables."],
] as const;

const RE_PARTS = [COL.wind, COL.pv, COL.csp, COL.otherRe];
const GENERATION_PARTS = MIX_FIELDS.map(([, c]) => c);

/** The names of stored columns, by their positions (`COL`). */
export function namesOf(...positions: readonly number[]): string[] {
  return positions.map(columnName);
}

/** An hourly MW field that is one stored column as published: its label, meaning, column and value. */
export function storedMw(label: string, description: string, column: number) {
  return { ...mw(label, description), columns: namesOf(column), value: (r: Reading) => valueAt(r, column) };
}

/**
 * The hourly field that says where an hour's values of `columns` came from: `powerbi` when a
 * PowerBI report filled any of them (the report read while their file was stopped), else `csv`
 * (the portal's files, or the data-request export).
 */
export function sourceField(...columns: number[]) {
  const mark = requireColumn(PROVENANCE_COLUMN);
  const bits = columns.reduce((all, c) => all | reportBit(c), 0);
  return {
    type: "string" as const,
    nullable: false,
    label: "Source",
    description:
      "Where the hour's values came from: `csv` (the portal's files, or the data-request export), or `powerbi` when the portal's file had stopped and its page's PowerBI report gave them (docs/data.md: \"PowerBI reports\").",
    enum: ["csv", "powerbi"],
    columns: [PROVENANCE_COLUMN],
    aggregates: [],
    value: (r: Reading) => {
      const marked = r[mark]!;
      return !Number.isNaN(marked) && (marked & bits) !== 0 ? "powerbi" : "csv";
    },
  };
}

// A column's bit of the provenance mark, or 0 when no report stands in for it.
function reportBit(column: number): number {
  const at = REPORT_COLUMNS.indexOf(columnName(column));
  return at < 0 ? 0 : 1 << at;
}

/** The columns `totalRe` reads. */
export const TOTAL_RE_COLUMNS = namesOf(COL.totalRe, ...RE_PARTS);
/** The columns `totalGeneration` reads. */
export const GENERATION_COLUMNS = namesOf(...GENERATION_PARTS);

// The sum of some columns of a reading, or null when any is missing (NaN). No allocation: this
// runs for every hour served.
function columnSum(reading: Reading | undefined, columns: readonly number[]): number | null {
  if (reading === undefined) return null;
  let total = 0;
  for (let i = 0; i < columns.length; i++) total += reading[columns[i]!]!;
  return Number.isNaN(total) ? null : total;
}

/** Total renewable output: the `Total RE` column, else wind + PV + CSP + other RE. */
export function totalRe(reading: Reading | undefined): number | null {
  return valueAt(reading, COL.totalRe) ?? columnSum(reading, RE_PARTS);
}

/** Total generation: the sum of the ten generation-mix fields, or null when any is missing. */
export function totalGeneration(reading: Reading | undefined): number | null {
  return columnSum(reading, GENERATION_PARTS);
}

/** `a / b`, or null when either is null or `b` is zero. */
export function ratioOrNull(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : a / b;
}

/** `a - b`, or null when either is null. */
export function differenceOrNull(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a - b;
}

/** Rounds to 3 decimals, halves away from zero; null stays null and -0 becomes 0. */
export function round3(value: number | null | undefined): number | null {
  if (value === null || value === undefined || Number.isNaN(value)) return null;
  const rounded = (Math.sign(value) * Math.round(Math.abs(value) * 1000)) / 1000;
  return rounded === 0 ? 0 : rounded;
}
