/**
 * The days an ingest touches, each loaded once from the store (a damaged one recovered from the
 * revision history, an unreadable one left alone), and what merging changed in them.
 */
import { HOUR_MS } from "../time.ts";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Day, dayFileName, emptyDay, parseDay } from "../store/day-file.ts";
import { contentHash, loadManifest, READINGS_DIR } from "../store/manifest.ts";
import { type DayChange, diffDay } from "../store/revisions.ts";
import type { Failures, IngestSummary } from "./ingest-summary.ts";
import { recoverDay } from "./recover-day.ts";

/** A day as merged, its file's text before, and its values before (none for a new day). */
export type Loaded = { day: Day; before: string; old: Day | undefined };

/** The touched days so far, those that could not be read, and what loads one. */
export interface LoadedDays {
  readonly days: Map<string, Loaded>;
  readonly corrupt: Set<string>;
  readonly loadDay: (key: string) => Day;
}

/**
 * Loads each touched day once: a file that does not match the manifest is recovered from the
 * revision history (and reported as repaired); one that cannot be parsed is left alone on disk,
 * reported, and counted as corrupt so that nothing is written over it.
 */
export function dayLoader(
  dir: string,
  now: () => number,
  failures: Failures,
  repaired: IngestSummary["repaired"],
): LoadedDays {
  const days = new Map<string, Loaded>();
  const corrupt = new Set<string>();
  const readingsDir = join(dir, READINGS_DIR);
  const recorded = loadManifest(dir);
  const load = (key: string): Loaded => {
    const path = join(readingsDir, dayFileName(key));
    const before = existsSync(path) ? readFileSync(path, "utf8") : "";
    const hash = recorded.get(key)?.hash;
    if (hash !== undefined && contentHash(before) !== hash) {
      const { day: recovered, note } = recoverDay(readingsDir, key, hash, before, now());
      repaired.push({ file: path, message: `${dayFileName(key)} did not match the manifest: ${note}` });
      return { day: recovered, before: "", old: cloneDay(recovered) };
    }
    try {
      const day = before === "" ? emptyDay(key) : parseDay(before, key);
      return { day, before, old: before === "" ? undefined : parseDay(before, key) };
    } catch (error) {
      // Never overwrite what cannot be read: leave the file for the operator to inspect.
      if (!corrupt.has(key)) failures.push({ file: path, kind: "day", message: (error as Error).message });
      corrupt.add(key);
      return { day: emptyDay(key), before, old: undefined };
    }
  };
  const loadDay = (key: string): Day => {
    let entry = days.get(key);
    if (entry === undefined) {
      entry = load(key);
      days.set(key, entry);
    }
    return entry.day;
  };
  return { days, corrupt, loadDay };
}

/** What an ingest changed: per existing day its old values, the days it creates, and its hours. */
export interface Changes {
  readonly changes: Map<string, DayChange>;
  readonly created: string[];
  readonly hoursAdded: number;
  readonly hoursRevised: number;
  /** The first and last hour added or revised (UTC ms), or null when none was. */
  readonly firstChanged: number | null;
  readonly lastChanged: number | null;
}

/** What the ingest changes, for the revision history and the webhooks' `data.published`. */
export function collectChanges(
  keys: readonly string[],
  days: ReadonlyMap<string, { day: Day; old: Day | undefined }>,
): Changes {
  const changes = new Map<string, DayChange>();
  const created: string[] = [];
  let firstChanged: number | null = null;
  let lastChanged: number | null = null;
  const changed = (hour: number) => {
    if (firstChanged === null || hour < firstChanged) firstChanged = hour;
    if (lastChanged === null || hour > lastChanged) lastChanged = hour;
  };
  let hoursAdded = 0;
  let hoursRevised = 0;
  for (const key of keys) {
    const { day, old } = days.get(key)!;
    if (old === undefined) {
      day.hours.forEach((h, i) => h !== undefined && changed(day.start + i * HOUR_MS));
      if (day.hours.some((h) => h !== undefined)) created.push(key);
      hoursAdded += day.hours.filter((h) => h !== undefined).length;
      continue;
    }
    const change = diffDay(old, day);
    if (change === undefined) continue;
    changes.set(key, change);
    for (const [ts, hour] of Object.entries(change)) {
      changed(Date.parse(ts));
      if (hour === null) hoursAdded++;
      else hoursRevised++;
    }
  }
  return { changes, created, hoursAdded, hoursRevised, firstChanged, lastChanged };
}

function cloneDay(day: Day): Day {
  return {
    key: day.key,
    start: day.start,
    hours: day.hours.map((h) => (h === undefined ? undefined : Float64Array.from(h))),
  };
}
