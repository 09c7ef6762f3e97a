import { test } from "node:test";
import assert from "node:assert/strict";
import { isoNow } from "../src/time.ts";

test("isoNow is now, in the same form", () => {
  const before = Date.now();
  const now = Date.parse(isoNow());
  assert.ok(now >= before && now <= Date.now());
  assert.match(isoNow(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});
