/**
 * Parses the portal's hour-beginning stamps. Both formats write South African Standard Time
 * (UTC+02:00, no daylight saving), so UTC is always local time minus two hours.
 */
import { SAST_OFFSET_MS } from "../time.ts";

// `2018-04-01 01:00:00 PM` (export) or `2023-02-14 13:00:00` (live); seconds optional.
const STAMP = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([AaPp][Mm]))?$/;

/** The UTC instant (ms) of a SAST hour-beginning stamp; throws a SyntaxError for anything else. */
export function parseSastStamp(text: string): number {
  const m = STAMP.exec(text.trim());
  if (m === null) throw new SyntaxError(`"${text}" is not a portal timestamp`);
  const [, y, mo, d, h, mi, s = "00", meridiem] = m;
  let hour = Number(h);
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) throw new SyntaxError(`"${text}" has no hour ${hour} on a 12-hour clock`);
    const pm = meridiem.toUpperCase() === "PM";
    hour = (hour % 12) + (pm ? 12 : 0);
  } else if (hour > 23) {
    throw new SyntaxError(`"${text}" has no hour ${hour}`);
  }
  if (mi !== "00" || s !== "00") throw new SyntaxError(`"${text}" is not the beginning of an hour`);
  const year = Number(y);
  const month = Number(mo) - 1;
  const day = Number(d);
  const local = Date.UTC(year, month, day, hour);
  const check = new Date(local);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month || check.getUTCDate() !== day) {
    throw new SyntaxError(`"${text}" is not a calendar date`);
  }
  return local - SAST_OFFSET_MS;
}
