/** Walks the stored readings of a range, touching only the days the store holds. */
import type { Reading } from "../source/reading.ts";
import type { ReadingStore } from "../store/reading-store.ts";

/** What a walk over stored hours reads: the stored days. */
export type DaySource = Pick<ReadingStore, "day">;
import { ceilHour, dayKey, DAY_MS, HOUR_MS } from "../time.ts";

/** Calls `visit` for each stored hour whose beginning lies in [from, to), in time order. */
export function forEachStoredHour(
  store: DaySource,
  from: number,
  to: number,
  visit: (hour: number, reading: Reading) => void,
): void {
  let hour = ceilHour(from);
  while (hour < to) {
    const day = store.day(dayKey(hour));
    const dayEnd = Math.min(Math.floor(hour / DAY_MS) * DAY_MS + DAY_MS, to);
    if (day !== undefined) {
      for (; hour < dayEnd; hour += HOUR_MS) {
        const reading = day.hours[(hour - day.start) / HOUR_MS];
        if (reading !== undefined) visit(hour, reading);
      }
    }
    hour = ceilHour(dayEnd);
  }
}
