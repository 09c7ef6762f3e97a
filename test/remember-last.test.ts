/** `src/cache/remember-last.ts`: computes again only when the argument changes, undefined included. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rememberLast, rememberMany } from "../src/cache/remember-last.ts";

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

test("rememberMany keeps up to max answers, then forgets them all at once", () => {
  const made: (string | undefined)[] = [];
  const quoted = rememberMany(2, (s: string | undefined) => {
    made.push(s);
    return s === undefined ? undefined : `"${s}"`;
  });
  assert.equal(quoted("a"), '"a"');
  assert.equal(quoted(undefined), undefined, "an undefined answer is kept too");
  assert.equal(quoted("a"), '"a"');
  assert.equal(quoted(undefined), undefined);
  assert.deepEqual(made, ["a", undefined]);
  assert.equal(quoted("b"), '"b"', "a third argument empties the memo first");
  assert.equal(quoted("a"), '"a"');
  assert.deepEqual(made, ["a", undefined, "b", "a"]);
  assert.equal(quoted("a"), quoted("a"), "the same string every time");
});
