/**
 * Made-up hours for the outlook's tests: sixty days of a real store's kind (no sample data) with
 * load reduction on the last evenings, and Eskom's demand forecast for the days after.
 */
import { sast } from "./helpers.ts";

const HOUR = 3_600_000;

/** The export columns the hours fill. */
export const COLUMNS = [
  "Manual Load_Reduction(MLR)",
  "RSA Contracted Demand",
  "RSA Contracted Forecast",
  "Eskom OCGT Generation",
];

/**
 * Sixty days of hours to the one before `end` (load reduction on the evenings of the last
 * `evenings` days, diesel with it), and the demand forecast for the 10 days after.
 */
export function history(end: number, evenings = 5): (string | number)[][] {
  const rows: (string | number)[][] = [];
  const first = Math.floor(end / HOUR) * HOUR - 60 * 24 * HOUR;
  for (let t = first; t < end + 10 * 24 * HOUR; t += HOUR) {
    const local = new Date(t + 2 * HOUR).getUTCHours();
    const demand = 26_000 + 3000 * Math.sin((local / 24) * 2 * Math.PI);
    const evening = local >= 17 && local <= 21 && t > end - evenings * 24 * HOUR;
    rows.push(
      t < end
        ? [sast(t), evening ? 2000 : 0, demand, demand + 200, evening ? 1800 : 150]
        : [sast(t), "", "", demand + 200, ""],
    );
  }
  return rows;
}
