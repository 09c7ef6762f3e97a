/**
 * The model behind the generated sample: the fleet it assumes, and one hour's demand, weather,
 * outages and dispatch, drawn from a seeded generator in a fixed order so that the same seed gives
 * the same numbers. `sample-export.ts` writes them as export rows.
 */
/** mulberry32: a small, well-distributed PRNG; deterministic for a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw from a uniform generator (Box-Muller): two uniform draws, in order. */
export function gaussFrom(random: () => number): () => number {
  return () => {
    const u = Math.max(random(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
}

// Relative demand by SAST hour: night trough, morning peak, midday dip, evening peak.
const DAILY_SHAPE = [
  0.84, 0.82, 0.81, 0.81, 0.83, 0.88, 0.96, 1.03, 1.06, 1.05, 1.03, 1.01, 0.99, 0.98, 0.97, 0.97, 0.99, 1.05,
  1.13, 1.14, 1.1, 1.03, 0.95, 0.89,
];

/** The installed fleet the sample assumes, MW. */
export const INSTALLED = 46_000;
export const WIND_CAP = 3_450;
export const PV_CAP = 2_290;
export const CSP_CAP = 500;
export const OTHER_CAP = 27.5;

/** The draws of a seeded generator: uniform in [0, 1) and standard normal. */
export interface Draws {
  readonly random: () => number;
  readonly gauss: () => number;
}

/** What drifts from hour to hour: demand noise, wind, cloud, outages and pumped storage. */
export interface Drift {
  demandNoise: number;
  windState: number;
  cloud: number;
  uclf: number;
  oclf: number;
  storage: number;
}

/** The calendar of one SAST hour. */
export interface When {
  readonly local: number;
  readonly hour: number;
  readonly doy: number;
  /** +1 mid-July, -1 mid-January. */
  readonly winter: number;
  readonly weekend: number;
}

/** The calendar of the SAST hour `local` (SAST written as if it were UTC). */
export function when(local: number): When {
  const date = new Date(local);
  const doy = Math.floor((local - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000);
  return {
    local,
    hour: date.getUTCHours(),
    doy,
    winter: Math.cos((2 * Math.PI * (doy - 196)) / 365),
    weekend: date.getUTCDay() === 0 || date.getUTCDay() === 6 ? 0.92 : 1,
  };
}

/** The demand of an hour before noise: the season's level in the day's shape, lower at weekends. */
function baseDemand(t: When): number {
  return (26_400 + 2_300 * t.winter) * DAILY_SHAPE[t.hour]! * t.weekend;
}

/** The sun's height in the hour, 0 at night to 1 at noon, over a day as long as the season's. */
function sunAt(t: When): number {
  const dayLength = 12 - 1.5 * t.winter;
  const sunrise = 12 - dayLength / 2;
  return Math.max(0, Math.sin((Math.PI * (t.hour + 0.5 - sunrise)) / dayLength));
}

/** Solar output under a cloud factor (1 clear): PV and CSP, whose storage runs into the evening. */
function solar(t: When, cloud: number): { pv: number; csp: number } {
  const sun = sunAt(t);
  const evening = t.hour >= 17 && t.hour <= 21 ? 0.5 * cloud : 0;
  return { pv: PV_CAP * 0.82 * sun * cloud, csp: CSP_CAP * Math.min(1, 0.9 * sun * cloud + evening) };
}

/** Demand, wind and sun of one hour. The draws happen in a fixed order: the same seed, the same bytes. */
export function weather(t: When, drift: Drift, { random, gauss }: Draws) {
  drift.demandNoise = 0.9 * drift.demandNoise + 160 * gauss();
  const contracted = baseDemand(t) + drift.demandNoise;
  drift.windState = Math.min(
    0.95,
    Math.max(0.02, drift.windState + 0.04 * gauss() + 0.02 * (0.36 - drift.windState)),
  );
  const wind = WIND_CAP * drift.windState;
  if (t.hour === 0)
    drift.cloud = Math.min(1, Math.max(0.25, drift.cloud + 0.15 * gauss() + 0.1 * (0.8 - drift.cloud)));
  const { pv, csp } = solar(t, drift.cloud);
  const other = OTHER_CAP * (0.6 + 0.1 * random());
  const totalRe = wind + pv + csp + other;
  return { contracted, wind, pv, csp, other, totalRe, residual: contracted - totalRe };
}

/**
 * What a forecaster expects of an hour: its demand without noise, and renewables at their mean
 * wind (0.36 of capacity), mean cloud (0.8) and mean other output.
 */
export function expectedHour(t: When): { contracted: number; totalRe: number } {
  const { pv, csp } = solar(t, 0.8);
  return { contracted: baseDemand(t), totalRe: WIND_CAP * 0.36 + pv + csp + OTHER_CAP * 0.65 };
}

/** Outages drift slowly; planned maintenance is heavier in summer. */
export function outages(t: When, drift: Drift, { gauss }: Draws) {
  if (t.hour === 0) {
    drift.uclf = Math.min(17_500, Math.max(8_000, drift.uclf + 450 * gauss() + 0.05 * (11_500 - drift.uclf)));
    drift.oclf = Math.min(3_500, Math.max(150, drift.oclf + 180 * gauss() + 0.1 * (900 - drift.oclf)));
  }
  const pclf = 4_300 - 1_600 * t.winter + 150 * Math.sin(t.doy);
  return { pclf, available: INSTALLED - pclf - drift.uclf - drift.oclf };
}

/** Storage and hydro, then diesel peakers for what the rest of the fleet cannot cover; load is shed beyond them. */
export function dispatch(
  t: When,
  drift: Drift,
  residual: number,
  available: number,
  { random, gauss }: Draws,
) {
  const nuclear = t.doy % 420 < 40 ? 930 : 1_860; // one unit out for refuelling part of the year
  const hydro = t.hour >= 6 && t.hour <= 21 ? 350 + 250 * random() : 40 * random();
  const peak = t.hour >= 17 && t.hour <= 21;
  const pumpedGen = peak
    ? Math.min(2_700, 900 + 1_800 * drift.storage * random())
    : t.hour >= 7 && t.hour <= 9
      ? 600
      : 0;
  const pumping = t.hour <= 5 || t.hour >= 23 ? -(1_200 + 1_000 * random()) : 0;
  drift.storage = Math.min(1, Math.max(0.1, drift.storage + (pumping < 0 ? 0.03 : 0) - pumpedGen / 40_000));
  const need = residual + 1_500 - (available - 1_500) - pumpedGen - hydro;
  const ocgt = Math.min(2_400, Math.max(0, need) * (0.75 + 0.25 * random()));
  const ippOcgt = Math.min(1_000, Math.max(0, need - 2_400) * 0.6);
  const beyond = need - ocgt - ippOcgt;
  const mlr = beyond < 300 ? 0 : Math.ceil(beyond / 1_000) * 1_000 - 40 * random();
  const ils = need > 1_500 ? Math.min(900, 300 + 500 * random()) : 0;
  // Other interruptions in the real exports: 0 in most hours (86% in 2018, 89% in 2020-22), else
  // up to about 500 MW; below 0 (curtailment) in 17 hours of 2018 and none of 2020-22. Here: some
  // when the system is tight, now and then a little when it is not, never below 0.
  const ios = need > 500 ? 300 * random() : Math.max(0, 80 * (gauss() - 1.3));
  const dispatchable = residual - mlr - ils - ios;
  const imports = 1_150 + 120 * random();
  const exports = 1_450 + 250 * t.winter + 150 * gauss();
  const gas = 0;
  const thermal = Math.max(
    18_000,
    dispatchable - nuclear - hydro - pumpedGen - ocgt - ippOcgt - gas + exports - imports + pumping * 0.3,
  );
  return {
    nuclear,
    hydro,
    pumpedGen,
    pumping,
    ocgt,
    ippOcgt,
    mlr,
    ils,
    ios,
    dispatchable,
    imports,
    exports,
    gas,
    thermal,
  };
}
