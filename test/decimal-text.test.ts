/**
 * `src/http/decimal-text.ts`: the RateLimit field's numbers are written without V8's number cache,
 * and must read exactly as `String(n)` would.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decimalText } from "../src/http/decimal-text.ts";

test("decimalText writes every safe whole number as String does", () => {
  const edges = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 10_000, 999_999, 1_000_000, 1_000_001, 2 ** 31 - 1];
  for (const n of [...edges, 1e9, 1e9 - 1, 1e15, Number.MAX_SAFE_INTEGER])
    assert.equal(decimalText(n), String(n));
  fc.assert(
    fc.property(fc.maxSafeNat(), (n) => decimalText(n) === String(n)),
    { numRuns: 10_000 },
  );
});

test("decimalText leaves other numbers to String", () => {
  for (const n of [-1, -0, 0.5, 1e21, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity, -Infinity])
    assert.equal(decimalText(n), String(n));
});
