/**
 * Realistic, deterministic sample data in the Eskom data-request export format, so that a fresh
 * `make serve` runs the real ingest path on believable numbers. The magnitudes follow the real
 * exports (demand of 18 to 35 GW with morning and evening peaks and a winter high, nuclear at two
 * ~930 MW units, OCGT and load reduction at tight evening peaks, wind and PV by weather and sun,
 * outages of 10 to 16 GW); no row of a real file is reproduced. The same options give the same bytes.
 */
import { HOUR_MS } from "../time.ts";

/** The verbatim 42-name export header. */
export const EXPORT_HEADER =
  "Date Time Hour Beginning,Original Res Forecast before Lockdown,Residual Forecast,RSA Contracted Forecast," +
  "Dispatchable Generation,Residual Demand,RSA Contracted Demand,International Exports,International Imports," +
  "Thermal Generation,Nuclear Generation,Eskom Gas Generation,Eskom OCGT Generation,Hydro Water Generation," +
  "Pumped Water Generation,ILS Usage,Manual Load_Reduction(MLR),IOS Excl ILS and MLR,Dispatchable IPP OCGT," +
  "Eskom Gas SCO,Eskom OCGT SCO,Hydro Water SCO,Pumped Water SCO Pumping,Wind,PV,CSP,Other RE,Total RE," +
  "Wind Installed Capacity,PV Installed Capacity,CSP Installed Capacity,Other RE Installed Capacity," +
  "Total RE Installed Capacity,Installed Eskom Capacity,Total PCLF,Total UCLF,Total OCLF,Total UCLF+OCLF," +
  "Non Comm Sentout,Drakensberg Gen Unit Hours,Palmiet Gen Unit Hours,Ingula Gen Unit Hours";

export interface SampleOptions {
  /** First day, SAST, `YYYY-MM-DD`. */
  readonly firstDay: string;
  readonly days: number;
  readonly seed?: number;
}

// mulberry32: a small, well-distributed PRNG; deterministic for a seed.
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Relative demand by SAST hour: night trough, morning peak, midday dip, evening peak.
const DAILY_SHAPE = [
  0.84, 0.82, 0.81, 0.81, 0.83, 0.88, 0.96, 1.03, 1.06, 1.05, 1.03, 1.01, 0.99, 0.98, 0.97, 0.97, 0.99, 1.05,
  1.13, 1.14, 1.1, 1.03, 0.95, 0.89,
];

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

/** The CSV text of `days` days of hourly export rows, starting at 00:00 SAST of `firstDay`. */
export function generateSampleExport(options: SampleOptions): string {
  const random = prng(options.seed ?? 20250101);
  const gauss = () => {
    const u = Math.max(random(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
  const first = Date.parse(`${options.firstDay}T00:00:00Z`);
  const lines = [EXPORT_HEADER];
  let demandNoise = 0;
  let windState = 0.35;
  let cloud = 0.8;
  let uclf = 11_500;
  let oclf = 900;
  let storage = 0.6;

  const installed = 46_000;
  const windCap = 3_450;
  const pvCap = 2_290;
  const cspCap = 500;
  const otherCap = 27.5;

  for (let h = 0; h < options.days * 24; h++) {
    const local = first + h * HOUR_MS;
    const date = new Date(local);
    const hour = date.getUTCHours();
    const doy = Math.floor((local - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000);
    const winter = Math.cos((2 * Math.PI * (doy - 196)) / 365); // +1 mid-July, -1 mid-January
    const weekend = date.getUTCDay() === 0 || date.getUTCDay() === 6 ? 0.92 : 1;

    demandNoise = 0.9 * demandNoise + 160 * gauss();
    const contracted = (26_400 + 2_300 * winter) * DAILY_SHAPE[hour]! * weekend + demandNoise;

    windState = Math.min(0.95, Math.max(0.02, windState + 0.04 * gauss() + 0.02 * (0.36 - windState)));
    const wind = windCap * windState;
    if (hour === 0) cloud = Math.min(1, Math.max(0.25, cloud + 0.15 * gauss() + 0.1 * (0.8 - cloud)));
    const dayLength = 12 - 1.5 * winter;
    const sunrise = 12 - dayLength / 2;
    const sun = Math.max(0, Math.sin((Math.PI * (hour + 0.5 - sunrise)) / dayLength));
    const pv = pvCap * 0.82 * sun * cloud;
    const csp = cspCap * Math.min(1, 0.9 * sun * cloud + (hour >= 17 && hour <= 21 ? 0.5 * cloud : 0));
    const other = otherCap * (0.6 + 0.1 * random());
    const totalRe = wind + pv + csp + other;
    const residual = contracted - totalRe;

    // Outages drift slowly; planned maintenance is heavier in summer.
    if (hour === 0) {
      uclf = Math.min(17_500, Math.max(8_000, uclf + 450 * gauss() + 0.05 * (11_500 - uclf)));
      oclf = Math.min(3_500, Math.max(150, oclf + 180 * gauss() + 0.1 * (900 - oclf)));
    }
    const pclf = 4_300 - 1_600 * winter + 150 * Math.sin(doy);
    const available = installed - pclf - uclf - oclf;

    const nuclear = doy % 420 < 40 ? 930 : 1_860; // one unit out for refuelling part of the year
    const hydro = hour >= 6 && hour <= 21 ? 350 + 250 * random() : 40 * random();
    const peak = hour >= 17 && hour <= 21;
    const pumpedGen = peak
      ? Math.min(2_700, 900 + 1_800 * storage * random())
      : hour >= 7 && hour <= 9
        ? 600
        : 0;
    const pumping = hour <= 5 || hour >= 23 ? -(1_200 + 1_000 * random()) : 0;
    storage = Math.min(1, Math.max(0.1, storage + (pumping < 0 ? 0.03 : 0) - pumpedGen / 40_000));

    // Diesel peakers cover what the rest of the fleet cannot; load is shed beyond them.
    const need = residual + 1_500 - (available - 1_500) - pumpedGen - hydro;
    const ocgt = Math.min(2_400, Math.max(0, need) * (0.75 + 0.25 * random()));
    const ippOcgt = Math.min(1_000, Math.max(0, need - 2_400) * 0.6);
    const beyond = need - ocgt - ippOcgt;
    const mlr = beyond < 300 ? 0 : Math.ceil(beyond / 1_000) * 1_000 - 40 * random();
    const ils = need > 1_500 ? Math.min(900, 300 + 500 * random()) : 0;
    const ios = need > 500 ? 300 * random() - 50 : 20 * gauss();
    const dispatchable = residual - mlr - ils - ios;
    const imports = 1_150 + 120 * random();
    const exports = 1_450 + 250 * winter + 150 * gauss();
    const gas = 0;
    const thermal = Math.max(
      18_000,
      dispatchable - nuclear - hydro - pumpedGen - ocgt - ippOcgt - gas + exports - imports + pumping * 0.3,
    );
    const forecastResidual = residual * (1 + 0.018 * gauss()) - mlr * 0.5;

    const pclfOut = Math.round(pclf * 1000) / 1000;
    const uclfOut = Math.round(uclf * 1000) / 1000;
    const oclfOut = Math.round(oclf * 1000) / 1000;
    const combined = fmt(uclfOut + oclfOut)
      .replace(/\.0$/, "")
      .replace(".", ","); // the export's quirk
    const row = [
      stamp(local),
      "",
      fmt(forecastResidual),
      fmt(forecastResidual + totalRe),
      fmt(Math.round(dispatchable)),
      fmt(Math.round(residual)),
      fmt(contracted),
      fmt(exports),
      fmt(Math.round(imports)),
      fmt(Math.round(thermal)),
      fmt(nuclear - Math.round(random() * 3)),
      fmt(gas),
      fmt(Math.round(ocgt)),
      fmt(Math.round(hydro)),
      fmt(Math.round(pumpedGen)),
      fmt(Math.round(ils)),
      fmt(Math.round(mlr)),
      fmt(Math.round(ios)),
      fmt(Math.round(ippOcgt)),
      fmt(-2),
      fmt(ocgt > 0 ? 0 : -3 - 2 * random()),
      fmt(0),
      fmt(Math.round(pumping)),
      fmt(wind),
      fmt(pv),
      fmt(csp),
      fmt(other),
      fmt(totalRe),
      fmt(windCap),
      fmt(pvCap),
      fmt(cspCap),
      fmt(otherCap),
      fmt(windCap + pvCap + cspCap + otherCap),
      fmt(installed),
      fmt(pclfOut),
      fmt(uclfOut),
      fmt(oclfOut),
      combined,
      fmt(Math.round(300 + 400 * random())),
      fmt(60 + 40 * storage),
      fmt(20 + 38 * storage),
      fmt(10 + 55 * storage),
    ];
    lines.push(row.join(","));
  }
  return lines.join("\n") + "\n";
}
