/**
 * The decimal text of a whole number, made without V8's number-to-string cache. `String(n)` and
 * `${n}` keep every string they make in that cache, which lives in the old generation, so a number
 * that differs on every request (the RateLimit field's remaining count) leaves one string a request
 * that survives the young generation and dies later, in the old one: under steady load that was
 * about 1 MB a second of old-space garbage and a mark-compact every few seconds, each a stall of
 * 10 to 20 ms (docs/performance.md). Text built here from fixed pieces is garbage at once.
 */

// "0" to "999", and the same padded to three digits, made once.
const SMALL = Array.from({ length: 1000 }, (_, i) => String(i));
const TRIPLES = SMALL.map((text) => text.padStart(3, "0"));

/** `String(n)` for a whole number from 0 to 2^53 - 1; any other number is left to `String`. */
export function decimalText(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) return String(n);
  if (n < 1000) return SMALL[n]!;
  let text = "";
  while (n >= 1000) {
    const rest = Math.floor(n / 1000);
    text = TRIPLES[n - rest * 1000]! + text;
    n = rest;
  }
  return SMALL[n]! + text;
}
