/** `src/http/range-cost.ts`: what a request counts as against its key's limit. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { rangeCostOf } from "../src/http/range-cost.ts";
import type { RequestContext } from "../src/http/router.ts";

// A request for `search` with an Accept header.
function request(search: string, accept?: string) {
  const ctx = {
    path: "/api/v1/grid/system-state",
    search,
    url: new URL(`http://localhost/api/v1/grid/system-state${search}`),
  } as unknown as RequestContext;
  const req = { headers: accept === undefined ? {} : { accept } } as IncomingMessage;
  return { req, ctx };
}

test("one request per 366 days of an hourly CSV or Parquet range; anything else, or unreadable, costs one", () => {
  const cost = (search: string, accept?: string) => {
    const { req, ctx } = request(search, accept);
    return rangeCostOf(req, ctx);
  };
  const tenYears = "?start=2016-01-01&end=2026-01-01";
  assert.equal(cost(`${tenYears}&format=csv`), 10);
  assert.equal(cost(tenYears, "application/vnd.apache.parquet"), 10);
  assert.equal(cost(tenYears), 1, "JSON");
  assert.equal(cost(`${tenYears}&format=csv&interval=1d`), 1, "daily");
  assert.equal(cost("?start=2025-01-01&end=2025-01-02&format=csv"), 1);
  assert.equal(cost("?start=2026-01-01&end=2016-01-01&format=csv"), 1, "an end before its start");
  assert.equal(cost("?start=nonsense&end=2026-01-01&format=csv"), 1);
});
