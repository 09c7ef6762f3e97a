/**
 * Parses the `start` / `end` values of a range: ISO-8601 date-times with a UTC offset (`Z`,
 * `+hh:mm`, `+hhmm`, `+hh`), seconds and fractions optional, or a bare `YYYY-MM-DD` meaning
 * 00:00 UTC. A date-time without an offset is ambiguous and refused. A space where the offset's
 * `+` should be is read as `+`, because an unencoded `+` in a query string arrives as a space.
 * The instant, in UTC, must lie in the years 1900 to 9999, so that every stamp the service writes
 * has four digits.
 */
import * as v from "valibot";

/**
 * A parsed instant: UTC ms (fractions below a millisecond dropped), whether it had a fraction, and
 * whether it was a bare date (00:00 UTC here; `tz` moves it to 00:00 in its zone).
 */
export interface Instant {
  readonly ms: number;
  readonly fractional: boolean;
  readonly date?: boolean;
}

const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)?)?$/;

/** Why a value is not an instant: unparseable, impossible, missing its offset, or out of range. */
export type InstantProblem = "format" | "impossible" | "no_offset" | "out_of_range";

/** The first and last instants accepted: the years 1900 to 9999, in UTC. */
export const FIRST_INSTANT = Date.UTC(1900, 0, 1);
export const LAST_INSTANT = Date.UTC(10_000, 0, 1) - 1;

/** Parses a value, returning the instant or what is wrong with it. */
export function parseInstant(text: string): Instant | InstantProblem {
  const m = PATTERN.exec(text);
  if (m === null) return "format";
  const [, y, mo, d, h, mi, s, frac, zulu, sign, oh, om] = m;
  const hasTime = h !== undefined;
  if (hasTime && zulu === undefined && sign === undefined) return "no_offset";
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  const [hour, minute, second] = [Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)];
  const [offH, offM] = [Number(oh ?? 0), Number(om ?? 0)];
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    offH > 23 ||
    offM > 59
  ) {
    return "impossible";
  }
  // Not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  check.setUTCHours(hour, minute, second);
  if (check.getUTCFullYear() !== year || check.getUTCDate() !== day) return "impossible";
  const millis = frac === undefined ? 0 : Number(frac.padEnd(3, "0").slice(0, 3));
  const offset = (sign === "-" ? -1 : 1) * (offH * 60 + offM) * 60_000;
  const ms = check.getTime() + millis - offset;
  if (ms < FIRST_INSTANT || ms > LAST_INSTANT) return "out_of_range";
  return { ms, fractional: frac !== undefined && /[1-9]/.test(frac), ...(hasTime ? {} : { date: true }) };
}

/** A Valibot schema: a string that parses as an instant, with the problem as the issue message. */
export const InstantSchema = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const parsed = parseInstant(dataset.value);
    if (typeof parsed === "string") {
      addIssue({ message: parsed });
      return NEVER;
    }
    return parsed;
  }),
);
