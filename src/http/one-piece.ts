/**
 * Strings joined into one piece. V8 keeps `a + b` (and a template) as a pair of pieces, and copies
 * it into one only when something reads it whole: a regular-expression test, a comparison, a
 * write to a socket or buffer. A string made once and written often (a header line, a part of
 * the access log's line) is cheaper copied once, here, than each time it is written (docs/performance.md). `join` copies its parts into one new string.
 */
export function inOnePiece(...parts: string[]): string {
  return parts.join("");
}
