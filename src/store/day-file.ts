/**
 * The on-disk form of one UTC day of readings: a JSON-lines file, one line per hour in time
 * order, each `{"ts": "...Z", <column>: <number>, ...}` with columns in catalog order and only
 * the values the sources gave. The same readings always serialize to the same bytes.
 */
import { columnIndex, columns, COLUMN_COUNT } from "../source/columns.ts";
import { emptyReading, type Reading } from "../source/reading.ts";
import { dayStart, HOUR_MS } from "../time.ts";

/** One UTC day: a reading per hour (index 0 is 00:00 UTC), undefined where there is none. */
export interface Day {
  readonly key: string;
  readonly start: number;
  readonly hours: (Reading | undefined)[];
}

/** A day with no readings yet. */
export function emptyDay(key: string): Day {
  return { key, start: dayStart(key), hours: new Array<Reading | undefined>(24).fill(undefined) };
}

/** The file name of a day. */
export function dayFileName(key: string): string {
  return `${key}.jsonl`;
}

/** The canonical JSON-lines text of a day. */
export function serializeDay(day: Day): string {
  let out = "";
  for (let h = 0; h < 24; h++) {
    const reading = day.hours[h];
    if (reading === undefined) continue;
    const ts = new Date(day.start + h * HOUR_MS).toISOString().slice(0, 19) + "Z";
    let line = `{"ts":"${ts}"`;
    for (let c = 0; c < COLUMN_COUNT; c++) {
      const v = reading[c]!;
      if (!Number.isNaN(v)) line += `,"${columns[c]!.name}":${JSON.stringify(v)}`;
    }
    out += line + "}\n";
  }
  return out;
}

const TS = /^(\d{4}-\d{2}-\d{2})T(\d{2}):00:00Z$/;

/** Parses a day file; throws a SyntaxError naming the file and line for anything malformed. */
export function parseDay(text: string, key: string): Day {
  const day = emptyDay(key);
  const file = dayFileName(key);
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    const fail = (reason: string): never => {
      throw new SyntaxError(`Cannot parse line ${i + 1} of "${file}": ${reason}`);
    };
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      fail((error as Error).message);
    }
    if (typeof record !== "object" || record === null || Array.isArray(record)) fail("not a JSON object");
    const { ts, ...values } = record as Record<string, unknown>;
    const m = typeof ts === "string" ? TS.exec(ts) : null;
    if (m === null || m[1] !== key) fail(`"ts" is not an hour of ${key}`);
    const hour = Number(m![2]);
    if (hour > 23) fail(`"ts" is not an hour of ${key}`);
    if (day.hours[hour] !== undefined) fail(`hour ${ts} appears twice`);
    const reading = emptyReading();
    for (const [name, value] of Object.entries(values)) {
      const c = columnIndex(name);
      if (c < 0) fail(`unknown column "${name}"`);
      if (typeof value !== "number" || !Number.isFinite(value)) fail(`"${name}" is not a number`);
      reading[c] = value as number;
    }
    day.hours[hour] = reading;
  }
  return day;
}
