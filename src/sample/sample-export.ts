/**
 * Realistic, deterministic sample data in the Eskom data-request export format, so that a fresh
 * `make serve` runs the real ingest path on believable numbers. The magnitudes follow the real
 * exports (demand of 18 to 35 GW with morning and evening peaks and a winter high, nuclear at two
 * ~930 MW units, OCGT and load reduction at tight evening peaks, wind and PV by weather and sun,
 * outages of 10 to 16 GW); no row of a real file is reproduced. The same options give the same bytes.
 * Every row carries the sample column, so that whatever ingests the file knows it is generated.
 */
import { columnIndex, normalizeColumnName, SAMPLE_COLUMN, TIMESTAMP_COLUMNS } from "../source/columns.ts";
import { HOUR_MS, SAST_OFFSET_MS } from "../time.ts";
import {
  CSP_CAP,
  dispatch,
  type Draws,
  type Drift,
  gaussFrom,
  INSTALLED,
  OTHER_CAP,
  outages,
  prng,
  PV_CAP,
  weather,
  when,
  type When,
  WIND_CAP,
} from "./sample-model.ts";

/**
 * The export's 42 column names, verbatim and in order. Each normalizes to a catalog column of
 * `source/columns.ts` (checked when this module loads), so a sample row is written by name.
 */
const EXPORT_COLUMNS = [
  "Date Time Hour Beginning",
  "Original Res Forecast before Lockdown",
  "Residual Forecast",
  "RSA Contracted Forecast",
  "Dispatchable Generation",
  "Residual Demand",
  "RSA Contracted Demand",
  "International Exports",
  "International Imports",
  "Thermal Generation",
  "Nuclear Generation",
  "Eskom Gas Generation",
  "Eskom OCGT Generation",
  "Hydro Water Generation",
  "Pumped Water Generation",
  "ILS Usage",
  "Manual Load_Reduction(MLR)",
  "IOS Excl ILS and MLR",
  "Dispatchable IPP OCGT",
  "Eskom Gas SCO",
  "Eskom OCGT SCO",
  "Hydro Water SCO",
  "Pumped Water SCO Pumping",
  "Wind",
  "PV",
  "CSP",
  "Other RE",
  "Total RE",
  "Wind Installed Capacity",
  "PV Installed Capacity",
  "CSP Installed Capacity",
  "Other RE Installed Capacity",
  "Total RE Installed Capacity",
  "Installed Eskom Capacity",
  "Total PCLF",
  "Total UCLF",
  "Total OCLF",
  "Total UCLF+OCLF",
  "Non Comm Sentout",
  "Drakensberg Gen Unit Hours",
  "Palmiet Gen Unit Hours",
  "Ingula Gen Unit Hours",
] as const;

/**
 * The live capacity file's two columns, which no export carries: the sample adds them after the
 * export's own, so that `make serve` shows the supply margin too (docs/data.md: "Sample data").
 */
const LIVE_CAPACITY_COLUMNS = [
  "Available Capacity Incl Non Comm Units",
  "Available_Capacity_Incl_Non_Comm_Units_Incl_Total_RE",
] as const;

/** The column no real export has, on every sample row: the file is generated, not Eskom's. */
const SAMPLE_HEADER = "Generated Sample Not Eskom Data";

const EXPORT_KEYS = [...EXPORT_COLUMNS, ...LIVE_CAPACITY_COLUMNS].map(normalizeColumnName);
for (const key of EXPORT_KEYS) {
  if (columnIndex(key) < 0 && !TIMESTAMP_COLUMNS.has(key))
    throw new Error(`Sample column ${key} is not in the catalog`);
}
if (normalizeColumnName(SAMPLE_HEADER) !== SAMPLE_COLUMN) throw new Error("The sample column's name drifted");

/** The verbatim export header, the live capacity columns and the sample column after it. */
export const EXPORT_HEADER = [...EXPORT_COLUMNS, ...LIVE_CAPACITY_COLUMNS, SAMPLE_HEADER].join(",");

/** How much sample to generate, and where it starts or ends. */
export type SampleOptions = (
  | {
      /** First day, SAST, `YYYY-MM-DD`: the sample starts at its 00:00 SAST. */
      readonly firstDay: string;
    }
  | {
      /** The last hour (its beginning, UTC ms): the sample ends with it. */
      readonly lastHour: number;
    }
) & {
  readonly days: number;
  readonly seed?: number;
  /** Called with each hour's outages (its SAST wall clock as if UTC, ms), as the row gives them. */
  readonly onHour?: (local: number, outages: SampleOutages) => void;
};

/** An hour's planned, unplanned and other capability loss, MW, of an installed capacity. */
export interface SampleOutages {
  readonly installed: number;
  readonly pclf: number;
  readonly uclf: number;
  readonly oclf: number;
}

function fmt(value: number): string {
  const rounded = Math.round(value * 1000) / 1000;
  return Number.isInteger(rounded) ? `${rounded}.0` : String(rounded);
}

function stamp(localMs: number): string {
  const d = new Date(localMs);
  const h24 = d.getUTCHours();
  const h12 = h24 % 12 === 0 ? 12 : h24 % 12;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(h12)}:00:00 ${h24 < 12 ? "AM" : "PM"}`;
}

// The live capacity file's columns: units not yet in commercial operation add what they sent out
// to the export's available capacity, and renewables add their output.
function addLiveCapacity(values: Record<string, string>, exportAvailable: number, totalRe: number): void {
  const available = Math.round(exportAvailable + Number(values.non_comm_sentout));
  values.available_capacity_incl_non_comm_units = fmt(available);
  values.available_capacity_incl_non_comm_units_incl_total_re = fmt(available + totalRe);
}

// One CSV row, written by column name (`EXPORT_KEYS` orders it). The literal's order is the draws' order.
function exportRow(t: When, drift: Drift, draws: Draws, onHour: SampleOptions["onHour"]): string {
  const { random, gauss } = draws;
  const w = weather(t, drift, draws);
  const o = outages(t, drift, draws);
  const d = dispatch(t, drift, w.residual, o.available, draws);
  const forecastResidual = w.residual * (1 + 0.018 * gauss()) - d.mlr * 0.5;
  const to3 = (x: number) => Math.round(x * 1000) / 1000;
  const [pclf, uclf, oclf] = [to3(o.pclf), to3(drift.uclf), to3(drift.oclf)];
  onHour?.(t.local, { installed: INSTALLED, pclf, uclf, oclf });
  const round = (x: number) => fmt(Math.round(x));
  const values: Record<string, string> = {
    date_time_hour_beginning: stamp(t.local),
    original_res_forecast_before_lockdown: "",
    residual_forecast: fmt(forecastResidual),
    rsa_contracted_forecast: fmt(forecastResidual + w.totalRe),
    dispatchable_generation: round(d.dispatchable),
    residual_demand: round(w.residual),
    rsa_contracted_demand: fmt(w.contracted),
    international_exports: fmt(d.exports),
    international_imports: round(d.imports),
    thermal_generation: round(d.thermal),
    nuclear_generation: fmt(d.nuclear - Math.round(random() * 3)),
    eskom_gas_generation: fmt(d.gas),
    eskom_ocgt_generation: round(d.ocgt),
    hydro_water_generation: round(d.hydro),
    pumped_water_generation: round(d.pumpedGen),
    ils_usage: round(d.ils),
    manual_load_reduction_mlr: round(d.mlr),
    ios_excl_ils_and_mlr: round(d.ios),
    dispatchable_ipp_ocgt: round(d.ippOcgt),
    eskom_gas_sco: fmt(-2),
    eskom_ocgt_sco: fmt(d.ocgt > 0 ? 0 : -3 - 2 * random()),
    hydro_water_sco: fmt(0),
    pumped_water_sco_pumping: round(d.pumping),
    wind: fmt(w.wind),
    pv: fmt(w.pv),
    csp: fmt(w.csp),
    other_re: fmt(w.other),
    total_re: fmt(w.totalRe),
    wind_installed_capacity: fmt(WIND_CAP),
    pv_installed_capacity: fmt(PV_CAP),
    csp_installed_capacity: fmt(CSP_CAP),
    other_re_installed_capacity: fmt(OTHER_CAP),
    total_re_installed_capacity: fmt(WIND_CAP + PV_CAP + CSP_CAP + OTHER_CAP),
    installed_eskom_capacity: fmt(INSTALLED),
    total_pclf: fmt(pclf),
    total_uclf: fmt(uclf),
    total_oclf: fmt(oclf),
    // The export's quirk: a decimal comma in this one column.
    total_uclf_oclf: fmt(uclf + oclf)
      .replace(/\.0$/, "")
      .replace(".", ","),
    non_comm_sentout: fmt(Math.round(300 + 400 * random())),
    drakensberg_gen_unit_hours: fmt(60 + 40 * drift.storage),
    palmiet_gen_unit_hours: fmt(20 + 38 * drift.storage),
    ingula_gen_unit_hours: fmt(10 + 55 * drift.storage),
  };
  addLiveCapacity(values, o.available, w.totalRe);
  return EXPORT_KEYS.map((key) => values[key]).join(",") + ",1";
}

/** SAST is UTC+02:00 all year: the sample's calendar runs on it, as the export's stamps do. */

/**
 * The CSV text of `days` days of hourly export rows, from 00:00 SAST of `firstDay` or up to and
 * including `lastHour`.
 */
export function generateSampleExport(options: SampleOptions): string {
  const random = prng(options.seed ?? 20250101);
  const gauss = gaussFrom(random);
  const drift: Drift = { demandNoise: 0, windState: 0.35, cloud: 0.8, uclf: 11_500, oclf: 900, storage: 0.6 };
  const first =
    "firstDay" in options
      ? Date.parse(`${options.firstDay}T00:00:00Z`)
      : options.lastHour + SAST_OFFSET_MS - (options.days * 24 - 1) * HOUR_MS;
  const lines = [EXPORT_HEADER];
  for (let h = 0; h < options.days * 24; h++)
    lines.push(exportRow(when(first + h * HOUR_MS), drift, { random, gauss }, options.onHour));
  return lines.join("\n") + "\n";
}
