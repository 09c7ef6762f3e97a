/**
 * The merge rule for readings: by hour, field by field. A blank source value never overwrites a
 * stored one; a non-blank one replaces it, so that files applied in order let the later one win.
 * A second source (`fill`) only fills what no file gave: it never replaces a stored value.
 */
import type { PortalFile } from "../source/portal-csv.ts";
import { emptyReading } from "../source/reading.ts";
import { dayKey, DAY_MS, HOUR_MS } from "../time.ts";
import type { Day } from "../store/day-file.ts";

/** Applies every row of `file` to the days it touches; `loadDay` supplies each day once. */
export function mergeFile(file: PortalFile, loadDay: (key: string) => Day, fill = false): number {
  let changed = 0;
  for (const row of file.rows) {
    const key = dayKey(row.hour);
    const day = loadDay(key);
    const h = Math.floor((row.hour - day.start) / HOUR_MS);
    if (h < 0 || h >= DAY_MS / HOUR_MS) throw new RangeError(`Hour ${row.hour} is not in day ${key}`);
    let reading = day.hours[h];
    let touched = false;
    for (let f = 0; f < file.columns.length; f++) {
      const value = row.values[f]!;
      if (Number.isNaN(value)) continue;
      reading ??= day.hours[h] = emptyReading();
      const c = file.columns[f]!;
      if (fill && !Number.isNaN(reading[c]!)) continue;
      if (!Object.is(reading[c], value)) {
        reading[c] = value;
        touched = true;
      }
    }
    if (touched) changed++;
  }
  return changed;
}
