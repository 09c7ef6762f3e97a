/**
 * Grid-stress index v1: one number from 0 (slack) to 1 (load shedding likely or active) per hour,
 * built only from stored readings, published in full so anyone can recompute it.
 *
 * Five components, each 0 to 1 and monotone in its stress driver:
 *
 * - `reserve_margin`: spare capacity. available = installed Eskom capacity − planned (PCLF) −
 *   unplanned (UCLF) − other (OCLF) outages (the data-request export's columns); for an hour
 *   without them, the live capacity file's available capacity (`Available Capacity Incl Non Comm
 *   Units`), which counts units not yet in commercial operation as well. margin = (available −
 *   residual demand) / available; component = clamp((MARGIN_COMFORTABLE − margin) /
 *   MARGIN_COMFORTABLE). 1 when available ≤ 0. Both are the capacity Eskom could dispatch that
 *   hour; the live one is larger by what its commissioning units could give (docs/api.md).
 * - `ocgt_ramp`: how far the diesel peakers have been ramped up: (Eskom OCGT + dispatchable IPP
 *   OCGT output) / OCGT_FULL_MW, clamped. Diesel is the last resort before load shedding.
 * - `residual_demand`: the load itself, clamp((residual demand − DEMAND_LIGHT_MW) /
 *   (DEMAND_PEAK_MW − DEMAND_LIGHT_MW)).
 * - `forecast_error`: demand above its forecast, which leaves the operator short:
 *   clamp(((residual demand − residual forecast) / residual demand) / FORECAST_MISS_FULL).
 * - `renewable_shortfall`: renewables below their usual level for that hour of day, where usual
 *   is the mean total RE at the same UTC hour over the previous RE_LOOKBACK_DAYS days (at least
 *   RE_MIN_DAYS of them stored): clamp((usual − total RE) / usual).
 *
 * value = Σ wᵢ·cᵢ / Σ wᵢ over the components that could be computed (weights renormalized when an
 * input is missing); null only when none could. Load-reduction columns (MLR, ILS) are never read:
 * the index should warn of load shedding, not restate it.
 */

import { requireColumn } from "../source/columns.ts";
import { type Reading, valueAt } from "../source/reading.ts";
import { COL, namesOf, TOTAL_RE_COLUMNS, totalRe } from "../records/source-fields.ts";
import { forEachStoredHour, type DaySource } from "../records/stored-hours.ts";
import { DAY_MS, HOUR_MS } from "../time.ts";

/** The version served in every record; bump it whenever anything in this file changes. */
export const STRESS_VERSION = "v1";

/** A reserve margin of 20% of available capacity or more adds no stress; 0% or less is full. */
export const MARGIN_COMFORTABLE = 0.2;
/** Combined OCGT output at which the peaker component is full: most of the ~3.4 GW diesel fleet. */
export const OCGT_FULL_MW = 2_000;
/** Residual demand adds no stress at a light overnight load, and full stress at a winter peak. */
export const DEMAND_LIGHT_MW = 22_000;
export const DEMAND_PEAK_MW = 32_000;
/** Demand 5% above its forecast is a full forecast miss (typical errors are 1 to 2%). */
export const FORECAST_MISS_FULL = 0.05;
/** "Usual" renewables: the mean of the same UTC hour over this many previous days... */
export const RE_LOOKBACK_DAYS = 28;
/** ...of which at least this many must be stored. */
export const RE_MIN_DAYS = 7;

/** The components, in served order, with their weights (which sum to 1). */
export const STRESS_WEIGHTS = {
  residual_demand: 0.2,
  ocgt_ramp: 0.25,
  reserve_margin: 0.35,
  renewable_shortfall: 0.1,
  forecast_error: 0.1,
} as const;

export type StressComponent = keyof typeof STRESS_WEIGHTS;
export type StressComponents = Record<StressComponent, number | null>;

/** The stored inputs of one hour; null where missing. */
export interface StressInputs {
  readonly residualDemand: number | null;
  readonly residualForecast: number | null;
  readonly installedCapacity: number | null;
  readonly plannedOutage: number | null;
  readonly unplannedOutage: number | null;
  readonly otherOutage: number | null;
  /** The live capacity file's available capacity, for hours without the export's columns. */
  readonly liveAvailable: number | null;
  readonly utilityOcgt: number | null;
  readonly ippOcgt: number | null;
  readonly totalRe: number | null;
  /** The usual total RE for this hour of day, or null without enough history. */
  readonly usualRe: number | null;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Spare-capacity stress. */
export function reserveMarginComponent(i: StressInputs): number | null {
  const available = availableCapacity(i);
  if (available === null || i.residualDemand === null) return null;
  const { residualDemand } = i;
  if (available <= 0) return 1;
  const margin = (available - residualDemand) / available;
  return clamp01((MARGIN_COMFORTABLE - margin) / MARGIN_COMFORTABLE);
}

/** The available capacity the reserve margin reads: the export's, else the live file's, else null. */
export function availableCapacity(i: StressInputs): number | null {
  const { installedCapacity, plannedOutage, unplannedOutage, otherOutage } = i;
  if (
    installedCapacity === null ||
    plannedOutage === null ||
    unplannedOutage === null ||
    otherOutage === null
  ) {
    return i.liveAvailable;
  }
  return installedCapacity - plannedOutage - unplannedOutage - otherOutage;
}

/** Diesel-peaker stress. */
export function ocgtComponent(i: StressInputs): number | null {
  if (i.utilityOcgt === null || i.ippOcgt === null) return null;
  return clamp01((i.utilityOcgt + i.ippOcgt) / OCGT_FULL_MW);
}

/** Load-level stress. */
export function residualDemandComponent(i: StressInputs): number | null {
  if (i.residualDemand === null) return null;
  return clamp01((i.residualDemand - DEMAND_LIGHT_MW) / (DEMAND_PEAK_MW - DEMAND_LIGHT_MW));
}

/** Under-forecast stress. */
export function forecastErrorComponent(i: StressInputs): number | null {
  if (i.residualDemand === null || i.residualForecast === null || i.residualDemand <= 0) return null;
  return clamp01((i.residualDemand - i.residualForecast) / i.residualDemand / FORECAST_MISS_FULL);
}

/** Renewable-shortfall stress. */
export function renewableShortfallComponent(i: StressInputs): number | null {
  if (i.totalRe === null || i.usualRe === null || i.usualRe <= 0) return null;
  return clamp01((i.usualRe - i.totalRe) / i.usualRe);
}

/** Every component of one hour. */
export function stressComponents(i: StressInputs): StressComponents {
  return {
    residual_demand: residualDemandComponent(i),
    ocgt_ramp: ocgtComponent(i),
    reserve_margin: reserveMarginComponent(i),
    renewable_shortfall: renewableShortfallComponent(i),
    forecast_error: forecastErrorComponent(i),
  };
}

/** The weighted mean of the components present, or null when none is. */
export function stressValue(components: StressComponents): number | null {
  let sum = 0;
  let weight = 0;
  for (const name of Object.keys(STRESS_WEIGHTS) as StressComponent[]) {
    const c = components[name];
    if (c === null) continue;
    sum += STRESS_WEIGHTS[name] * c;
    weight += STRESS_WEIGHTS[name];
  }
  return weight === 0 ? null : sum / weight;
}

/** The bands, lowest first, with the value from which each begins. */
export const STRESS_BANDS = [
  ["low", 0],
  ["moderate", 0.3],
  ["high", 0.6],
  ["critical", 0.8],
] as const;

export type StressBand = (typeof STRESS_BANDS)[number][0];

/** The band of a (served, rounded) value. */
export function stressBand(value: number | null): StressBand | null {
  if (value === null) return null;
  let band: StressBand = "low";
  for (const [name, from] of STRESS_BANDS) if (value >= from) band = name;
  return band;
}

const INSTALLED = requireColumn("installed_eskom_capacity");
const PCLF = requireColumn("total_pclf");
const UCLF = requireColumn("total_uclf");
const OCLF = requireColumn("total_oclf");
const IPP_OCGT = requireColumn("dispatchable_ipp_ocgt");

/** The stored columns the formula reads (the usual RE too comes from `Total RE` and its parts). */
export const V1_INPUT_COLUMNS = [
  ...namesOf(COL.residualDemand, COL.residualForecast, INSTALLED, PCLF, UCLF, OCLF),
  ...namesOf(COL.availableCapacity, COL.utilityOcgt, IPP_OCGT),
  ...TOTAL_RE_COLUMNS,
];

/** The formula's stored inputs of one reading (the usual RE comes from history). */
export function stressInputs(reading: Reading, usualRe: number | null): StressInputs {
  return {
    residualDemand: valueAt(reading, COL.residualDemand),
    residualForecast: valueAt(reading, COL.residualForecast),
    installedCapacity: valueAt(reading, INSTALLED),
    plannedOutage: valueAt(reading, PCLF),
    unplannedOutage: valueAt(reading, UCLF),
    otherOutage: valueAt(reading, OCLF),
    liveAvailable: valueAt(reading, COL.availableCapacity),
    utilityOcgt: valueAt(reading, COL.utilityOcgt),
    ippOcgt: valueAt(reading, IPP_OCGT),
    totalRe: totalRe(reading),
    usualRe,
  };
}

/** Whether an hour holds any stored input of the formula (the usual RE is history, not an input). */
export function hasInput(i: StressInputs): boolean {
  return Object.entries(i).some(([name, v]) => name !== "usualRe" && v !== null);
}

/**
 * The usual total RE of every hour in [from, to): the mean at the same UTC hour over the
 * previous RE_LOOKBACK_DAYS days, kept as one rolling sum per hour of day.
 */
export function usualRenewables(store: DaySource, from: number, to: number): (hour: number) => number | null {
  const base = Math.floor(from / DAY_MS) * DAY_MS - RE_LOOKBACK_DAYS * DAY_MS;
  const n = Math.ceil((to - base) / HOUR_MS);
  const re = new Float64Array(n).fill(NaN);
  forEachStoredHour(store, base, to, (hour, reading) => {
    re[(hour - base) / HOUR_MS] = totalRe(reading) ?? NaN;
  });
  const usual = new Float64Array(n).fill(NaN);
  const sums = new Float64Array(24);
  const counts = new Int32Array(24);
  const span = 24 * RE_LOOKBACK_DAYS;
  for (let i = 0; i < n; i++) {
    const h = i % 24;
    const entering = i - 24;
    if (entering >= 0 && !Number.isNaN(re[entering]!)) {
      sums[h] = sums[h]! + re[entering]!;
      counts[h] = counts[h]! + 1;
    }
    const leaving = i - 24 - span;
    if (leaving >= 0 && !Number.isNaN(re[leaving]!)) {
      sums[h] = sums[h]! - re[leaving]!;
      counts[h] = counts[h]! - 1;
    }
    if (counts[h]! >= RE_MIN_DAYS) usual[i] = sums[h]! / counts[h]!;
  }
  return (hour) => {
    const v = usual[(hour - base) / HOUR_MS];
    return v === undefined || Number.isNaN(v) ? null : v;
  };
}
