/**
 * The catalog of Eskom Data Portal columns the service understands, named in snake_case.
 *
 * A stored reading keeps every catalog column its source file carried. The catalog is closed on
 * purpose: a column the service does not know is refused at ingest with a clear error, rather than
 * guessed at, so that a renamed or new portal column is noticed by the operator.
 */

/**
 * What a column measures. `forecast` columns do not count as actual readings; `installed` ones
 * describe the plant (installed capacity), not the hour, and are kept for hours still to come;
 * `provenance` ones say where an hour's values came from, and are the service's, never a file's.
 */
export type ColumnKind = "forecast" | "actual" | "capacity" | "installed" | "storage" | "provenance";

/** One known source column. */
export interface Column {
  readonly name: string;
  readonly kind: ColumnKind;
  /**
   * Never exactly 0 in a published hour (national demand, coal, wind, reservoir levels...): a row
   * whose values are all 0 and that holds such a column is a placeholder for an unpublished hour.
   */
  readonly neverZero?: true;
}

const COLUMNS: readonly Column[] = [
  // Demand and forecasts (export and live `System_hourly_actual_and_forecasted_demand.csv`).
  { name: "original_res_forecast_before_lockdown", kind: "forecast", neverZero: true },
  { name: "residual_forecast", kind: "forecast", neverZero: true },
  { name: "rsa_contracted_forecast", kind: "forecast", neverZero: true },
  { name: "dispatchable_generation", kind: "actual", neverZero: true },
  { name: "residual_demand", kind: "actual", neverZero: true },
  { name: "rsa_contracted_demand", kind: "actual", neverZero: true },
  { name: "international_exports", kind: "actual" },
  { name: "international_imports", kind: "actual" },
  // Generation by source.
  { name: "thermal_generation", kind: "actual", neverZero: true },
  { name: "thermal_gen_excl_pumping_and_sco", kind: "actual", neverZero: true },
  { name: "nuclear_generation", kind: "actual" },
  { name: "eskom_gas_generation", kind: "actual" },
  { name: "eskom_ocgt_generation", kind: "actual" },
  { name: "hydro_water_generation", kind: "actual" },
  { name: "pumped_water_generation", kind: "actual" },
  // Load reduction and interruptible supply.
  { name: "ils_usage", kind: "actual" },
  { name: "manual_load_reduction_mlr", kind: "actual" },
  { name: "ios_excl_ils_and_mlr", kind: "actual" },
  { name: "dispatchable_ipp_ocgt", kind: "actual" },
  // Synchronous-condenser operation and pumping (negative values are consumption).
  { name: "eskom_gas_sco", kind: "actual" },
  { name: "eskom_ocgt_sco", kind: "actual" },
  { name: "hydro_water_sco", kind: "actual" },
  { name: "pumped_water_sco_pumping", kind: "actual" },
  { name: "eskom_ocgt_sco_pumping", kind: "actual" },
  { name: "eskom_gas_sco_pumping", kind: "actual" },
  { name: "hydro_water_sco_pumping", kind: "actual" },
  // Renewables.
  { name: "wind", kind: "actual", neverZero: true },
  { name: "pv", kind: "actual" },
  { name: "csp", kind: "actual" },
  { name: "other_re", kind: "actual", neverZero: true },
  { name: "total_re", kind: "actual", neverZero: true },
  // Installed capacity and capacity lost to outages (MW).
  { name: "wind_installed_capacity", kind: "installed", neverZero: true },
  { name: "pv_installed_capacity", kind: "installed", neverZero: true },
  { name: "csp_installed_capacity", kind: "installed", neverZero: true },
  { name: "other_re_installed_capacity", kind: "installed", neverZero: true },
  { name: "total_re_installed_capacity", kind: "installed", neverZero: true },
  { name: "installed_eskom_capacity", kind: "installed", neverZero: true },
  { name: "total_pclf", kind: "capacity" },
  { name: "total_uclf", kind: "capacity", neverZero: true },
  { name: "total_oclf", kind: "capacity" },
  { name: "total_uclf_oclf", kind: "capacity", neverZero: true },
  { name: "non_comm_sentout", kind: "actual" },
  // Pumped-storage energy levels, in hours of generation.
  { name: "drakensberg_gen_unit_hours", kind: "storage", neverZero: true },
  { name: "palmiet_gen_unit_hours", kind: "storage", neverZero: true },
  { name: "ingula_gen_unit_hours", kind: "storage", neverZero: true },
  // Added in 1.5 (appended, so that the columns before keep their places). The live capacity file
  // (`System_hourly_demand_and_available_capacity.csv`): available capacity, without and with
  // renewables.
  { name: "available_capacity_incl_non_comm_units", kind: "capacity", neverZero: true },
  { name: "available_capacity_incl_non_comm_units_incl_total_re", kind: "capacity", neverZero: true },
  // The live outage trend (`Hourly_UCLF_and_OCLF_Trend.csv`).
  { name: "hourly_uclf_oclf", kind: "capacity", neverZero: true },
  // The pumped-storage file's limits of each reservoir, in hours of generation.
  { name: "drakensberg_max_hours", kind: "installed", neverZero: true },
  { name: "palmiet_max_hours", kind: "installed", neverZero: true },
  { name: "ingula_max_hours", kind: "installed", neverZero: true },
  { name: "drakensberg_min_hours", kind: "installed", neverZero: true },
  { name: "palmiet_min_hours", kind: "installed", neverZero: true },
  { name: "ingula_min_hours", kind: "installed", neverZero: true },
  // Added in 1.9: which of the hour's values were read from a PowerBI report where a file had
  // stopped (a bitmask over REPORT_COLUMNS; no value: none). Never read from a file.
  { name: "from_powerbi_report", kind: "provenance" },
];

/**
 * The columns a PowerBI report may fill, in the order of `from_powerbi_report`'s bits (appended
 * to, never reordered): the capacity file's, whose link died in 2026 (its demand too, where the
 * demand file has not given an hour).
 */
export const REPORT_COLUMNS: readonly string[] = [
  "available_capacity_incl_non_comm_units",
  "available_capacity_incl_non_comm_units_incl_total_re",
  "residual_demand",
  "rsa_contracted_demand",
];

/** The column that says which of an hour's values came from a PowerBI report. */
export const PROVENANCE_COLUMN = "from_powerbi_report";

/** Every known column, in the order readings are stored. */
export const columns: readonly Column[] = COLUMNS;

/** How many columns a reading has room for. */
export const COLUMN_COUNT = COLUMNS.length;

const INDEX = new Map(COLUMNS.map((column, i) => [column.name, i]));

/**
 * The header names (normalized) that hold the hour-beginning timestamp. The outage file has two
 * (`DateTimeKey` and `Date Time Hour Beginning`); the pumped-storage file calls it `Date`.
 */
export const TIMESTAMP_COLUMNS: ReadonlySet<string> = new Set([
  "date_time_hour_beginning",
  "datetimekey",
  "date",
]);

/**
 * The header (normalized) of the column that Grid Data Service's own generated sample files carry
 * on every row: a file with it is generated sample data, never the utility's (docs/data.md:
 * "Sample data"). Its values are not readings and are not stored.
 */
export const SAMPLE_COLUMN = "generated_sample_not_eskom_data";

/** Turns a portal header name into the snake_case name the store uses. */
export function normalizeColumnName(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** The position of a column in a reading, or -1 for a name the catalog does not know. */
export function columnIndex(name: string): number {
  return INDEX.get(name) ?? -1;
}

/**
 * The position of a file's column: as `columnIndex`, but -1 for a provenance column, which is the
 * service's own record and no file may write.
 */
export function fileColumnIndex(name: string): number {
  const i = columnIndex(name);
  return i >= 0 && COLUMNS[i]!.kind === "provenance" ? -1 : i;
}

/** The name of the column at a position of a reading. */
export function columnName(index: number): string {
  const column = COLUMNS[index];
  if (column === undefined) throw new RangeError(`No column at position ${index}`);
  return column.name;
}

/** The position of a column that must exist; throws for a programming error. */
export function requireColumn(name: string): number {
  const i = INDEX.get(name);
  if (i === undefined) throw new RangeError(`Unknown column "${name}"`);
  return i;
}
