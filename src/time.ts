/** Millisecond arithmetic and formatting for UTC instants, hours and days. */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * South African Standard Time's offset from UTC: +02:00 all year (no daylight saving since 1944,
 * before any data served). The portal stamps every hour in it.
 */
export const SAST_OFFSET_MS = 2 * HOUR_MS;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** The UTC calendar day of an instant, `YYYY-MM-DD`. */
export function dayKey(ms: number): string {
  // The civil date of the day count, by whole-number arithmetic (Howard Hinnant's
  // `civil_from_days`): the stores look a day up by its key for every hour read, and building a
  // Date and its ISO string for each was half the time of an outlook issued as of an instant.
  const z = Math.floor(ms / DAY_MS) + 719_468; // days since 0000-03-01
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153); // months from March
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year < 0 ? "-" : ""}${pad(Math.abs(year), 4)}-${pad(month)}-${pad(day)}`;
}

/** The instant at 00:00 UTC of a `YYYY-MM-DD` day key. */
export function dayStart(key: string): number {
  return Date.UTC(Number(key.slice(0, 4)), Number(key.slice(5, 7)) - 1, Number(key.slice(8, 10)));
}

/** An instant as the service writes it: `YYYY-MM-DDThh:mm:ss+00:00`, with `.sss` on request. */
export function formatInstant(ms: number, withMillis = false): string {
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDThh:mm:ss.sssZ, fast and native
  return iso.length === 24 ? `${iso.slice(0, withMillis ? 23 : 19)}+00:00` : slowFormat(ms, withMillis);
}

// Years beyond 9999 or before 0 (toISOString writes them with six digits and a sign).
function slowFormat(ms: number, withMillis: boolean): string {
  const d = new Date(ms);
  const base = `${dayKey(ms)}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return withMillis ? `${base}.${pad(d.getUTCMilliseconds(), 3)}+00:00` : `${base}+00:00`;
}

/** The first whole hour at or after an instant. */
export function ceilHour(ms: number): number {
  return Math.ceil(ms / HOUR_MS) * HOUR_MS;
}

/** The first 00:00 UTC at or after an instant. */
export function ceilDay(ms: number): number {
  return Math.ceil(ms / DAY_MS) * DAY_MS;
}

/** The whole UTC days whose 00:00 lies in [start, end): from the first 00:00 to the last day's end. */
export function dayRange(start: number, end: number): { from: number; to: number } {
  const from = ceilDay(start);
  const days = Math.max(0, Math.ceil((end - from) / DAY_MS));
  return { from, to: from + days * DAY_MS };
}

/**
 * The wait a `Retry-After` value asks for (RFC 9110 §10.2.3), in ms: delay-seconds, or an
 * HTTP-date (a date in the past means now); undefined for anything else.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === "") return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its month ("Thu, 01 Jan 2026 00:00:30 GMT"); "1.5" or "-3" are no dates.
  const at = /[A-Za-z]/.test(text) ? Date.parse(text) : NaN;
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
