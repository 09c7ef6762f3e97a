/**
 * Time zones and calendar periods (docs/api.md: "Time zones and intervals"). The service knows two
 * zones: UTC and Africa/Johannesburg (SAST, UTC+02:00 all year: South Africa has kept no daylight
 * saving time since 1944, before any data served). A period of a day or longer begins at 00:00 in
 * the zone: a day, an ISO week (Monday first), a calendar month or year, or Eskom's financial year
 * (1 April to 31 March). All arithmetic is on UTC milliseconds shifted by the zone's fixed offset.
 */
import { DAY_MS, formatInstant, SAST_OFFSET_MS } from "./time.ts";

/** The zones `tz` accepts; the first is the default. */
export const ZONES = ["UTC", "Africa/Johannesburg"] as const;
export type Zone = (typeof ZONES)[number];

/** Each zone's offset from UTC, in ms (fixed: neither zone has daylight saving time). */
export const ZONE_OFFSET_MS: Readonly<Record<Zone, number>> = {
  UTC: 0,
  "Africa/Johannesburg": SAST_OFFSET_MS,
};

/** The periods of a day or longer that records can aggregate. */
export const PERIODS = ["1d", "1w", "1mo", "1y", "fy"] as const;
export type Period = (typeof PERIODS)[number];

/** The month (0-based) Eskom's financial year begins in: April. */
const FY_FIRST_MONTH = 3;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

// The zone's wall-clock calendar date of an instant, as a UTC Date at its 00:00.
function localDate(ms: number, offset: number): Date {
  const d = new Date(ms + offset);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/** The instant the period holding `ms` begins, in the zone of `offset`. */
export function periodStart(ms: number, period: Period, offset: number): number {
  const d = localDate(ms, offset);
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  let local: number;
  if (period === "1d") local = d.getTime();
  else if (period === "1w") local = Date.UTC(y, m, day - ((d.getUTCDay() + 6) % 7));
  else if (period === "1mo") local = Date.UTC(y, m, 1);
  else if (period === "1y") local = Date.UTC(y, 0, 1);
  else local = Date.UTC(m >= FY_FIRST_MONTH ? y : y - 1, FY_FIRST_MONTH, 1);
  return local - offset;
}

/** The instant the period after the one beginning at `start` begins. */
export function nextPeriod(start: number, period: Period, offset: number): number {
  if (period === "1d") return start + DAY_MS;
  if (period === "1w") return start + 7 * DAY_MS;
  const d = new Date(start + offset);
  const [y, m] = [d.getUTCFullYear(), d.getUTCMonth()];
  const months = period === "1mo" ? 1 : 12;
  return Date.UTC(y, m + months, 1) - offset;
}

/**
 * The periods whose beginning lies in [start, end), as the instants from the first one's
 * beginning to the last one's end (equal when there is none).
 */
export function periodRange(
  start: number,
  end: number,
  period: Period,
  offset: number,
): { from: number; to: number } {
  const first = periodStart(start, period, offset);
  const from = first === start ? first : nextPeriod(first, period, offset);
  let to = from;
  while (to < end) to = nextPeriod(to, period, offset);
  return { from, to };
}

/** The zone's calendar date of an instant, `YYYY-MM-DD`. */
export function localDay(ms: number, offset: number): string {
  const d = new Date(ms + offset);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** The offset as a stamp writes it: `+00:00`, `+02:00`. */
export function offsetText(offset: number): string {
  const minutes = Math.abs(offset) / 60_000;
  return `${offset < 0 ? "-" : "+"}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/**
 * An instant in the zone's wall-clock time with its offset: `YYYY-MM-DDThh:mm:ss+02:00`, `.sss` on
 * request; in UTC (offset 0), exactly what `formatInstant` writes.
 */
export function formatZoned(ms: number, offset: number, withMillis = false): string {
  if (offset === 0) return formatInstant(ms, withMillis);
  const d = new Date(ms + offset);
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const millis = withMillis ? `.${pad(d.getUTCMilliseconds(), 3)}` : "";
  return `${localDay(ms, offset)}T${time}${millis}${offsetText(offset)}`;
}
