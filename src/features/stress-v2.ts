/**
 * Grid-stress index v2: the probability that load is being shed in the hour, from what the
 * system showed in that hour and the days before it, published in full so anyone can recompute it
 * (docs/api.md: "Grid stress").
 *
 * Seven components, each 0 to 1 and non-decreasing in its stress driver, from columns both the
 * data-request export and the portal's live files carry (so a store kept by `make pull` alone has
 * every one):
 *
 * - `diesel_day`, `diesel_week`: mean Eskom + IPP OCGT output over the 24 hours, or 168 hours, to
 *   this one, over DIESEL_FULL_MW. The diesel peakers are the last resort before shedding; a week
 *   of burning them is a week of a system short of capacity.
 * - `supply_gap`: the forecast residual demand of the hour against the most the dispatchable fleet
 *   supplied in any of the 24 hours before (thermal, nuclear, gas, OCGT, hydro, pumped storage,
 *   IPP OCGT and imports): `gap = (forecast − supplied) / supplied`, component
 *   clamp(0.5 + gap / GAP_SPAN).
 * - `fleet_decline`: how far that 24-hour best fell below the best of the 168 hours before:
 *   clamp((best_week − best_day) / best_week / DECLINE_FULL). Breakdowns show here first.
 * - `pumped_storage_low`: 1 − the mean fill of the three schemes' upper reservoirs, each level over
 *   its full level (the hours the portal's file gives as maximum).
 * - `interruptible_load`: ILS + IOS in use over INTERRUPTIBLE_FULL_MW: the measures short of
 *   shedding.
 * - `evening_peak`: 1 from 17:00 to 21:59 SAST, the hours demand peaks, else 0.
 *
 * value = σ(b₀ + Σ bᵢ·cᵢ), the logistic function of the components weighted by COEFFICIENTS, which
 * were fitted (logistic regression, `features/logistic.ts`) to the hours with manual load reduction
 * of the real exports this repository can read (2018 and April 2020 to June 2022); a weight may be
 * negative where the fit found a driver, given the others, rarer in shedding hours. A component
 * that cannot be computed counts at its mean over those hours (MEANS), and is served null; the
 * value is null only when every component but the clock is. An hour with no input at all has no
 * record. **It never reads the answer**: not manual load reduction, and not residual demand, which
 * adds it back.
 */
import { requireColumn } from "../source/columns.ts";
import { type Reading, valueAt } from "../source/reading.ts";
import { COL, namesOf } from "../records/source-fields.ts";
import { forEachStoredHour, type DaySource } from "../records/stored-hours.ts";
import { DAY_MS, HOUR_MS, SAST_OFFSET_MS } from "../time.ts";
import { V2_FIT } from "./stress-v2-fit.ts";

/** The version served in every record of this formula. */
export const STRESS_V2 = "v2";

/** Mean OCGT output at which the diesel components are full: most of the ~3.4 GW diesel fleet. */
export const DIESEL_FULL_MW = 2_000;
/** A forecast 10% above the day's best supply makes the gap component 1; 10% below, 0. */
export const GAP_SPAN = 0.2;
/** A day's best supply 10% below the week's makes the decline component 1. */
export const DECLINE_FULL = 0.1;
/** Interruptible load in use at which its component is full: about what is contracted. */
export const INTERRUPTIBLE_FULL_MW = 1_000;
/** The evening peak, SAST hours [from, to]. */
export const EVENING_PEAK_SAST = [17, 21] as const;
/** Each scheme's full upper reservoir, in hours of generation (the portal file's maxima). */
export const FULL_HOURS = { drakensberg: 102, palmiet: 58.7, ingula: 67 } as const;
/** Hours a mean or a best needs of its window to be computed: half of it. */
const MIN_SHARE = 0.5;
const DAY_HOURS = 24;
const WEEK_HOURS = 168;

/** The components, in served order. */
export const V2_COMPONENTS = [
  "diesel_day",
  "diesel_week",
  "supply_gap",
  "fleet_decline",
  "pumped_storage_low",
  "interruptible_load",
  "evening_peak",
] as const;
export type V2Component = (typeof V2_COMPONENTS)[number];
export type V2Components = Record<V2Component, number | null>;

/**
 * The fitted weights, the intercept and one per component, and each component's mean over the
 * fitting hours (what a missing component counts as). Written by `npm run evaluate-stress --
 * --write` from the real files into `stress-v2-fit.ts`; a test refits them and fails on drift.
 */
export const COEFFICIENTS: { readonly intercept: number } & Readonly<Record<V2Component, number>> =
  V2_FIT.coefficients;
export const MEANS: Readonly<Record<V2Component, number>> = V2_FIT.means;

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

const IPP_OCGT = requireColumn("dispatchable_ipp_ocgt");
const ILS = requireColumn("ils_usage");
const IOS = requireColumn("ios_excl_ils_and_mlr");
const SUPPLY = [
  COL.thermal,
  COL.nuclear,
  COL.utilityGas,
  COL.utilityOcgt,
  COL.hydroWater,
  COL.pumpedWaterGen,
  IPP_OCGT,
  COL.imports,
].map(Number);

/** The diesel peakers' output of a reading: Eskom's OCGT plus the IPPs', or null. */
function diesel(reading: Reading): number | null {
  const own = valueAt(reading, COL.utilityOcgt);
  return own === null ? null : own + (valueAt(reading, IPP_OCGT) ?? 0);
}

/** What the dispatchable fleet and imports supplied in a reading, or null when a part is missing. */
function supplied(reading: Reading): number | null {
  let total = 0;
  for (const column of SUPPLY) {
    const v = reading[column]!;
    if (Number.isNaN(v)) return null;
    total += v;
  }
  return total;
}

const INPUTS = [
  ...SUPPLY,
  COL.residualForecast,
  ILS,
  IOS,
  COL.drakensbergHours,
  COL.palmietHours,
  COL.ingulaHours,
];

/** The stored columns the formula reads. */
export const V2_INPUT_COLUMNS = namesOf(...INPUTS);

/** Whether a reading holds any input of the formula: an hour without one has no record. */
export function hasV2Input(reading: Reading): boolean {
  return INPUTS.some((column) => !Number.isNaN(reading[column]!));
}

/** The pumped-storage component of a reading, or null without all three levels. */
function storageLow(reading: Reading): number | null {
  const levels = [
    valueAt(reading, COL.drakensbergHours),
    valueAt(reading, COL.palmietHours),
    valueAt(reading, COL.ingulaHours),
  ];
  if (levels.some((l) => l === null)) return null;
  const fill =
    (levels[0]! / FULL_HOURS.drakensberg + levels[1]! / FULL_HOURS.palmiet + levels[2]! / FULL_HOURS.ingula) /
    3;
  return clamp01(1 - fill);
}

/** The history the windowed components read: per hour from `base`, diesel and supply (NaN where missing). */
export interface StressWindow {
  readonly base: number;
  readonly diesel: Float64Array;
  readonly supplied: Float64Array;
}

/**
 * The diesel and supply of every hour from the week before `from`'s day to `to`: the 168 hours
 * the windowed components read before any hour of the range.
 */
export function stressWindow(store: DaySource, from: number, to: number): StressWindow {
  const base = Math.floor(from / DAY_MS) * DAY_MS - (WEEK_HOURS / 24) * DAY_MS;
  const n = Math.max(0, Math.ceil((to - base) / HOUR_MS));
  const out = { base, diesel: new Float64Array(n).fill(NaN), supplied: new Float64Array(n).fill(NaN) };
  forEachStoredHour(store, base, to, (hour, reading) => {
    const i = (hour - base) / HOUR_MS;
    out.diesel[i] = diesel(reading) ?? NaN;
    out.supplied[i] = supplied(reading) ?? NaN;
  });
  return out;
}

// The mean of `values` over the `span` entries ending at `end` (included), or null with too few.
function meanOver(values: Float64Array, end: number, span: number): number | null {
  let sum = 0;
  let count = 0;
  for (let i = Math.max(0, end - span + 1); i <= end; i++) {
    const v = values[i]!;
    if (!Number.isNaN(v)) {
      sum += v;
      count++;
    }
  }
  return count >= span * MIN_SHARE ? sum / count : null;
}

// The largest of the `span` entries before `end` (excluded), or null with too few.
function bestBefore(values: Float64Array, end: number, span: number): number | null {
  let best = -Infinity;
  let count = 0;
  for (let i = Math.max(0, end - span); i < end; i++) {
    const v = values[i]!;
    if (!Number.isNaN(v)) {
      best = Math.max(best, v);
      count++;
    }
  }
  return count >= span * MIN_SHARE ? best : null;
}

/** Every component of the hour `hour`, whose reading is `reading`. */
export function v2Components(reading: Reading, hour: number, window: StressWindow): V2Components {
  const at = (hour - window.base) / HOUR_MS;
  const day = meanOver(window.diesel, at, DAY_HOURS);
  const week = meanOver(window.diesel, at, WEEK_HOURS);
  const bestDay = bestBefore(window.supplied, at, DAY_HOURS);
  const bestWeek = bestBefore(window.supplied, at, WEEK_HOURS);
  const forecast = valueAt(reading, COL.residualForecast);
  const ils = valueAt(reading, ILS);
  const ios = valueAt(reading, IOS);
  const sast = new Date(hour + SAST_OFFSET_MS).getUTCHours();
  return {
    diesel_day: day === null ? null : clamp01(day / DIESEL_FULL_MW),
    diesel_week: week === null ? null : clamp01(week / DIESEL_FULL_MW),
    supply_gap:
      forecast === null || bestDay === null || bestDay <= 0
        ? null
        : clamp01(0.5 + (forecast - bestDay) / bestDay / GAP_SPAN),
    fleet_decline:
      bestDay === null || bestWeek === null || bestWeek <= 0
        ? null
        : clamp01((bestWeek - bestDay) / bestWeek / DECLINE_FULL),
    pumped_storage_low: storageLow(reading),
    interruptible_load:
      ils === null && ios === null ? null : clamp01(((ils ?? 0) + (ios ?? 0)) / INTERRUPTIBLE_FULL_MW),
    evening_peak: sast >= EVENING_PEAK_SAST[0] && sast <= EVENING_PEAK_SAST[1] ? 1 : 0,
  };
}

/** The value of some components with some weights: σ(b₀ + Σ bᵢ·cᵢ), missing ones at their means. */
export function v2Value(
  components: V2Components,
  weights: typeof COEFFICIENTS = COEFFICIENTS,
  means: typeof MEANS = MEANS,
): number | null {
  let z = weights.intercept;
  let present = 0;
  for (const name of V2_COMPONENTS) {
    if (name === "evening_peak") {
      z += weights[name] * components[name]!;
      continue;
    }
    const c = components[name];
    if (c !== null) present++;
    z += weights[name] * (c ?? means[name]);
  }
  return present === 0 ? null : sigmoid(z);
}

/** The components as the vector the fit reads, in V2_COMPONENTS order (missing ones at their means). */
export function v2Vector(components: V2Components, means: typeof MEANS = MEANS): number[] {
  return V2_COMPONENTS.map((name) => components[name] ?? means[name]);
}
