/** `src/cache/remember-last.ts`: computes again only when the argument changes, undefined included. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rememberLast } from "../src/cache/remember-last.ts";

test("the last answer is kept until the argument changes", () => {
  const seen: (string | undefined)[] = [];
  const upper = rememberLast((s: string | undefined) => {
    seen.push(s);
    return s === undefined ? "-" : s.toUpperCase();
  });
  assert.equal(upper(undefined), "-", "undefined as a first argument is computed, not taken as remembered");
  assert.equal(upper(undefined), "-");
  assert.equal(upper("br"), "BR");
  assert.equal(upper("br"), "BR");
  assert.equal(upper("gzip"), "GZIP");
  assert.equal(upper("br"), "BR");
  assert.deepEqual(seen, [undefined, "br", "gzip", "br"]);
});
