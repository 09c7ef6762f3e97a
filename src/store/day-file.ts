/**
 * The on-disk form of one UTC day of readings: a JSON-lines file, one line per hour in time
 * order, each `{"ts": "...Z", <column>: <number>, ...}` with columns in catalog order and only
 * the values the sources gave. The same readings always serialize to the same bytes.
 */
import { columns, COLUMN_COUNT } from "../source/columns.ts";
import type { Reading } from "../source/reading.ts";
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
const INDEX: Readonly<Record<string, number>> = Object.assign(
  Object.create(null) as Record<string, number>,
  Object.fromEntries(columns.map((c, i) => [c.name, i])),
);

/** Parses a day file; throws a SyntaxError naming the file and line for anything malformed. */
export function parseDay(text: string, key: string): Day {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  let records: unknown[];
  try {
    // One parse for the whole file is several times faster than one per line.
    records = body === "" ? [] : (JSON.parse(`[${body.replaceAll("\n", ",")}]`) as unknown[]);
  } catch {
    records = body.split("\n").map((line, i) => parseLine(line, i, key));
  }
  const day = emptyDay(key);
  // One allocation for the whole day; each hour's reading is a view into it.
  const values = new Float64Array(24 * COLUMN_COUNT).fill(NaN);
  records.forEach((record, i) => addRecord(day, values, record, i, key));
  return day;
}

function fail(line: number, key: string, reason: string): never {
  throw new SyntaxError(`Cannot parse line ${line + 1} of "${dayFileName(key)}": ${reason}`);
}

function parseLine(line: string, i: number, key: string): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    return fail(i, key, (error as Error).message);
  }
}

function addRecord(day: Day, values: Float64Array, record: unknown, i: number, key: string): void {
  if (typeof record !== "object" || record === null || Array.isArray(record))
    fail(i, key, "not a JSON object");
  const fields = record as Record<string, unknown>;
  const ts = fields.ts;
  const m = typeof ts === "string" ? TS.exec(ts) : null;
  if (m === null || m[1] !== key) fail(i, key, `"ts" is not an hour of ${key}`);
  const hour = Number(m[2]);
  if (hour > 23) fail(i, key, `"ts" is not an hour of ${key}`);
  if (day.hours[hour] !== undefined) fail(i, key, `hour ${JSON.stringify(ts)} appears twice`);
  const reading = values.subarray(hour * COLUMN_COUNT, (hour + 1) * COLUMN_COUNT);
  for (const name in fields) {
    if (name === "ts") continue;
    const c = INDEX[name];
    if (c === undefined) fail(i, key, `unknown column "${name}"`);
    const value = fields[name];
    if (typeof value !== "number" || !Number.isFinite(value)) fail(i, key, `"${name}" is not a number`);
    reading[c] = value;
  }
  day.hours[hour] = reading;
}
