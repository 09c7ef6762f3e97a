/**
 * The store as it stood at an instant: the same reading interface, with every revision recorded
 * after that instant undone and the days created after it absent. Built per request; see
 * `revisions.ts` for the history it reads.
 */
import type { Reading } from "../source/reading.ts";
import { ACTUAL_COLUMNS } from "./manifest.ts";
import { dayKey, HOUR_MS } from "../time.ts";
import type { Day } from "./day-file.ts";
import type { ReadingStore, StoreSnapshot } from "./reading-store.ts";
import { dayAsOf, type History, readRevisions } from "./revisions.ts";

/** A read-only view of `store` (whose files are in `dir`) as it was at `asOf` (UTC ms). */
export function storeAsOf(store: ReadingStore, history: History, asOf: number): ReadingStore {
  const { dir } = store;
  const current = store.refresh();
  const existed = (key: string) => (history.created.get(key) ?? -Infinity) <= asOf;
  const manifest = new Map([...current.manifest].filter(([key]) => existed(key)));
  const days = new Map<string, Day | undefined>();

  function day(key: string): Day | undefined {
    if (days.has(key)) return days.get(key);
    const now = manifest.has(key) ? store.day(key) : undefined;
    const then = now === undefined ? undefined : dayAsOf(now, readRevisions(dir, key), asOf);
    days.set(key, then);
    return then;
  }

  // The newest hour holding an actual reading then: the newest days are searched first.
  function lastActual(): number | null {
    for (const key of [...manifest.keys()].reverse()) {
      const found = day(key);
      if (found === undefined) continue;
      for (let h = 23; h >= 0; h--) {
        const reading = found.hours[h];
        if (reading !== undefined && ACTUAL_COLUMNS.some((c) => !Number.isNaN(reading[c]!))) {
          return found.start + h * HOUR_MS;
        }
      }
    }
    return null;
  }

  let snapshot: StoreSnapshot | undefined;
  return {
    dir,
    history: () => history,
    refresh: () =>
      (snapshot ??= {
        manifest,
        lastActual: lastActual(),
        version: current.version,
        modified: current.modified,
        sample: current.sample,
      }),
    // The past does not change.
    changedSince: () => false,
    day,
    reading(hour: number): Reading | undefined {
      const found = day(dayKey(hour));
      return found?.hours[Math.floor((hour - found.start) / HOUR_MS)];
    },
    entry: (key) => manifest.get(key),
    damaged: () => store.damaged(),
    verify: () => store.verify(),
  };
}
