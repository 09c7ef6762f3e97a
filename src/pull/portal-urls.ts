/**
 * Where the Eskom Data Portal publishes its rolling seven-day files:
 * `<base>/<YYYY>/<MM>/<file>`, the month being that of publication in SAST (UTC+02:00).
 */

/** The portal's upload folder. */
export const DEFAULT_PORTAL_URL = "https://www.eskom.co.za/dataportal/wp-content/uploads";

/** The three live files: generation by station type, demand with forecasts, renewables. */
export const DEFAULT_PORTAL_FILES = [
  "Station_Build_Up.csv",
  "System_hourly_actual_and_forecasted_demand.csv",
  "Hourly_Generation.csv",
] as const;

const SAST_MS = 2 * 3_600_000;

/** The URLs to try for `file` at `now`: this SAST month's, then the previous month's. */
export function portalUrls(base: string, file: string, now: number): [string, string] {
  const sast = new Date(now + SAST_MS);
  const year = sast.getUTCFullYear();
  const month = sast.getUTCMonth(); // 0-based
  const path = (y: number, m: number) =>
    `${base.replace(/\/+$/, "")}/${y}/${String(m + 1).padStart(2, "0")}/${file}`;
  return [path(year, month), month === 0 ? path(year - 1, 11) : path(year, month - 1)];
}
