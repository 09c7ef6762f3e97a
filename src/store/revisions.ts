/**
 * The revision history of the store, so that any past state can be rebuilt (`as_of`) and no
 * published value is ever lost when the portal corrects it.
 *
 * - `revisions/YYYY-MM-DD.jsonl`, one per day that an ingest changed after it first existed: a
 *   line per ingest that changed it, `{"at": <when>, "hours": {<ts>: <what it was>}}`, where what
 *   an hour was is `null` (no reading yet) or the old value of each column that changed (`null`
 *   for "no value"). The new values are in the day file, or in the next line's old ones. A change
 *   read from a PowerBI report says so (`"source": "powerbi"`); one read from a file says nothing.
 *   So does a line of `days.jsonl`.
 * - `revisions/days.jsonl`: a line per ingest that created days, `{"at", "days": [...]}`; its
 *   first line marks when the history began (it is written even when no day is new).
 *
 * Lines are appended and fsynced before the day files change. A line whose change did not land
 * (a killed ingest) holds the values the day still has, so undoing it changes nothing: the log is
 * safe to replay however an ingest ended. See docs/data.md: "Revisions and `as_of`".
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { appendLine } from "../files/append-line.ts";
import { columnIndex, columns } from "../source/columns.ts";
import { emptyReading, type Reading } from "../source/reading.ts";
import { HOUR_MS } from "../time.ts";
import type { Day } from "./day-file.ts";

export const REVISIONS_DIR = "revisions";
export const CREATED_FILE = "days.jsonl";

/** What one ingest changed in one day: per hour, null (it had no reading) or old values by column. */
export type DayChange = Record<string, Record<string, number | null> | null>;

/** One line of a day's log. */
export interface Revision {
  /** When the change was recorded, UTC ms. */
  readonly at: number;
  readonly hours: DayChange;
}

const hourTs = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";

/** What turning `before` into `after` changed, or undefined when nothing did. */
export function diffDay(before: Day, after: Day): DayChange | undefined {
  const change: DayChange = {};
  let any = false;
  for (let h = 0; h < 24; h++) {
    const old = before.hours[h];
    const now = after.hours[h];
    if (now === undefined) continue;
    const ts = hourTs(after.start + h * HOUR_MS);
    if (old === undefined) {
      change[ts] = null;
      any = true;
      continue;
    }
    let cells: Record<string, number | null> | undefined;
    for (let c = 0; c < columns.length; c++) {
      if (Object.is(old[c], now[c])) continue;
      cells ??= {};
      cells[columns[c]!.name] = Number.isNaN(old[c]!) ? null : old[c]!;
    }
    if (cells !== undefined) {
      change[ts] = cells;
      any = true;
    }
  }
  return any ? change : undefined;
}

/** Records what ingests changed, before they write the days. */
export function recordRevisions(
  dir: string,
  at: number,
  changes: ReadonlyMap<string, DayChange>,
  created: readonly string[],
  source?: "powerbi",
): void {
  const from = source === undefined ? {} : { source };
  const revisions = join(dir, REVISIONS_DIR);
  mkdirSync(revisions, { recursive: true });
  const stamp = new Date(at).toISOString();
  const createdPath = join(revisions, CREATED_FILE);
  if (created.length > 0 || !existsSync(createdPath)) {
    appendLine(createdPath, JSON.stringify({ at: stamp, ...from, days: created }) + "\n");
  }
  for (const [key, hours] of changes) {
    appendLine(join(revisions, `${key}.jsonl`), JSON.stringify({ at: stamp, ...from, hours }) + "\n");
  }
}

// Lines of a log; a line that does not parse (the torn end of a killed append) is left out.
function lines(path: string): unknown[] {
  if (!existsSync(path)) return [];
  const out: unknown[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // Only an interrupted append leaves a partial line; what it recorded never landed.
    }
  }
  return out;
}

/** The history of the store: when it began, and when each day came into being. */
export interface History {
  /** The first recorded ingest, UTC ms, or null when the store has no history yet. */
  readonly began: number | null;
  /** When each day was created, for days created since the history began. */
  readonly created: ReadonlyMap<string, number>;
}

/**
 * Reads `revisions/days.jsonl`. A day listed more than once was listed first by ingests that
 * recorded it and then did not commit (killed, or a full disk): a committed day is never created
 * again, so its last line is when it came into being.
 */
export function readHistory(dir: string): History {
  const created = new Map<string, number>();
  let began: number | null = null;
  for (const line of lines(join(dir, REVISIONS_DIR, CREATED_FILE))) {
    const { at, days } = line as { at: string; days: string[] };
    const ms = Date.parse(at);
    began ??= ms;
    for (const day of days) created.set(day, ms);
  }
  return { began, created };
}

/** Reads a day's revision log, oldest first. */
export function readRevisions(dir: string, key: string): Revision[] {
  return lines(join(dir, REVISIONS_DIR, `${key}.jsonl`)).map((line) => {
    const { at, hours } = line as { at: string; hours: DayChange };
    return { at: Date.parse(at), hours };
  });
}

/** The day as it stood at `asOf`: the revisions recorded after it undone, newest first. */
export function dayAsOf(day: Day, revisions: readonly Revision[], asOf: number): Day {
  const later = revisions.filter((r) => r.at > asOf);
  if (later.length === 0) return day;
  const hours = day.hours.map((r) => (r === undefined ? undefined : (Float64Array.from(r) as Reading)));
  for (const revision of later.reverse()) {
    for (const [ts, old] of Object.entries(revision.hours)) {
      const h = Math.floor((Date.parse(ts) - day.start) / HOUR_MS);
      if (h < 0 || h > 23) continue;
      if (old === null) {
        hours[h] = undefined;
        continue;
      }
      const reading = (hours[h] ??= emptyReading());
      for (const [name, value] of Object.entries(old)) {
        const c = columnIndex(name);
        if (c !== -1) reading[c] = value === null ? NaN : value;
      }
    }
  }
  return { key: day.key, start: day.start, hours };
}
