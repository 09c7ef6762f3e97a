/**
 * The live portal's files, known by their header's set of column names (never by their name,
 * delimiter or column order: the portal renames and reformats), with what each needs beyond the
 * rule that a header name is a catalog column (docs/data.md: "The portal's files"):
 *
 * - columns another file is the source of are not stored from this one (`checkOnly`: read, bounds
 *   checked and used by the row check; `ignore`: not read), so that no column has two sources
 *   that could disagree;
 * - a row check, when the file's own columns say whether a row is what it claims;
 * - where its rows go: the reading store, or the forecast issues (`src/forecasts/`), which keep
 *   every issue of Eskom's 3-month forecast apart from the week-ahead forecast of the demand file.
 *
 * The data-request export is no form here: its columns are each read as what they are named.
 */
import { normalizeColumnName } from "./columns.ts";

/** The outcome of a row check: the row is certain, or why it is not. */
export type RowCheck = (value: (column: string) => number) => string | undefined;

/** One live file. */
export interface PortalForm {
  /** The file's name as the portal first published it. */
  readonly name: string;
  /** Its header's column names, normalized to snake_case. */
  readonly header: readonly string[];
  /** Columns read and checked but not stored: another file is their source. */
  readonly checkOnly?: readonly string[];
  /** Columns not read: another file is their source. */
  readonly ignore?: readonly string[];
  /** A check each row must pass to be certain; `value` is NaN for a blank or absent column. */
  readonly rowCheck?: RowCheck;
  /** What the row check verifies, for the refusal of a file most of whose rows fail it. */
  readonly rowCheckText?: string;
  /** Where its rows go. */
  readonly target: "readings" | "forecast-issues";
}

const names = (...raw: string[]) => raw.map(normalizeColumnName);

/** The greatest difference allowed between the two measures of renewables in the capacity file. */
export const RE_IDENTITY_TOLERANCE_MW = 1;

/**
 * The capacity file's identity: available capacity with renewables less without is the renewables'
 * output, and so is RSA contracted demand less residual demand. The file writes the first to the
 * whole MW and the second to the kW, so in every published row they agree within half a MW; a row
 * where they do not (the batch of 2023-04-24 has renewables of 28 MW at noon and no residual
 * demand) is not what its names say, and a row without all four cannot be checked.
 */
const capacityIdentity: RowCheck = (value) => {
  const available = value("available_capacity_incl_non_comm_units");
  const withRe = value("available_capacity_incl_non_comm_units_incl_total_re");
  if (Number.isNaN(available) && Number.isNaN(withRe)) return undefined; // no capacity to check
  const residual = value("residual_demand");
  const contracted = value("rsa_contracted_demand");
  const terms = [available, withRe, residual, contracted];
  if (terms.some(Number.isNaN)) return "a term of its renewables identity is blank";
  const gap = withRe - available - (contracted - residual);
  return Math.abs(gap) <= RE_IDENTITY_TOLERANCE_MW
    ? undefined
    : `its renewables do not add up: capacity with less without is ${withRe - available} MW, contracted less residual demand ${contracted - residual} MW`;
};

const BUILD_UP_HEADER = names(
  "Date_Time_Hour_Beginning",
  "Thermal_Gen_Excl_Pumping_and_SCO",
  "Eskom_OCGT_SCO_Pumping",
  "Eskom_Gas_SCO_Pumping",
  "Hydro_Water_SCO_Pumping",
  "Pumped_Water_SCO_Pumping",
  "Thermal_Generation",
  "Nuclear_Generation",
  "International_Imports",
  "Eskom_OCGT_Generation",
  "Eskom_Gas_Generation",
  "Dispatchable_IPP_OCGT",
  "Hydro_Water_Generation",
  "Pumped_Water_Generation",
  "IOS_Excl_ILS_and_MLR",
  "ILS_Usage",
  "Manual_Load_Reduction_MLR",
  "Wind",
  "PV",
  "CSP",
  "Other_RE",
);

/** Every live file the service reads. */
export const PORTAL_FORMS: readonly PortalForm[] = [
  { name: "Station_Build_Up.csv", header: BUILD_UP_HEADER, target: "readings" },
  {
    name: "System_hourly_actual_and_forecasted_demand.csv",
    header: names(
      "DateTimeKey",
      "Residual Forecast",
      "RSA Contracted Forecast",
      "Residual Demand",
      "RSA Contracted Demand",
    ),
    target: "readings",
  },
  {
    name: "Hourly_Generation.csv",
    header: names("Date Time Hour Beginning", "Wind", "PV", "CSP", "Other RE"),
    target: "readings",
  },
  {
    name: "System_hourly_demand_and_available_capacity.csv",
    header: names(
      "DateTimeKey",
      "Available Capacity Incl Non Comm Units",
      "Available_Capacity_Incl_Non_Comm_Units_Incl_Total_RE",
      "Residual Demand",
      "RSA Contracted Demand",
    ),
    // The demand file is the source of demand; this file's differs from it by tens of MW, as
    // revised at another time, and serves here to check the renewables.
    checkOnly: names("Residual Demand", "RSA Contracted Demand"),
    rowCheck: capacityIdentity,
    rowCheckText:
      "its capacity with renewables less without must equal RSA contracted less residual demand, within 1 MW",
    target: "readings",
  },
  {
    name: "Hourly_UCLF_and_OCLF_Trend.csv",
    header: names("DateTimeKey", "Date Time Hour Beginning", "Hourly UCLF+OCLF"),
    target: "readings",
  },
  {
    name: "Pumped_storage_gen_hours_gas_generation_and_manual_load_reduction.csv",
    header: names(
      "Date",
      "Eskom OCGT Generation",
      "Eskom Gas Generation",
      "Dispatchable IPP OCGT",
      "Manual Load Reduction(MLR)",
      "Palmiet Gen Unit Hours",
      "Ingula Gen Unit Hours",
      "Drakensberg Gen Unit Hours",
      "Palmiet Max Hours",
      "Ingula Max Hours",
      "Drakensberg Max Hours",
      "Palmiet Min Hours",
      "Ingula Min Hours",
      "Drakensberg Min Hours",
    ),
    // The station build-up is the source of these four; the copies here are not read.
    ignore: names(
      "Eskom OCGT Generation",
      "Eskom Gas Generation",
      "Dispatchable IPP OCGT",
      "Manual Load Reduction(MLR)",
    ),
    target: "readings",
  },
  {
    name: "Official_hourly_forecast_for_next_3_months.csv",
    header: names("Date_Time_Hour_Beginning", "RSA Contracted Forecast", "Residual Forecast"),
    target: "forecast-issues",
  },
];

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((name) => b.includes(name));

/** The form of the file whose header has these names (normalized), or undefined. */
export function formOfHeader(header: readonly string[]): PortalForm | undefined {
  return PORTAL_FORMS.find((form) => sameSet(form.header, header));
}

/** The form of that name; throws for a name this release does not know (a programming error). */
export function portalForm(name: string): PortalForm {
  const form = PORTAL_FORMS.find((f) => f.name === name);
  if (form === undefined) throw new RangeError(`No portal file is named "${name}"`);
  return form;
}
