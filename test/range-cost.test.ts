/** `src/http/range-cost.ts`: what a request counts as against its key's limit, remembered per query. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { createRangeCost, rangeCostOf } from "../src/http/range-cost.ts";
import type { RequestContext } from "../src/http/router.ts";

// A request for `search` with an Accept header, and how often its URL was read.
function request(search: string, accept?: string) {
  const reads = { url: 0 };
  const ctx = {
    path: "/api/v1/grid/system-state",
    search,
    get url() {
      reads.url++;
      return new URL(`http://localhost/api/v1/grid/system-state${search}`);
    },
  } as unknown as RequestContext;
  const req = { headers: accept === undefined ? {} : { accept } } as IncomingMessage;
  return { req, ctx, reads };
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

test("a route's cost is remembered by query and Accept: a poll does not parse its query again", () => {
  const cost = createRangeCost(2);
  const search = "?start=2016-01-01&end=2026-01-01";
  const first = request(search);
  assert.equal(cost(first.req, first.ctx), 1);
  const again = request(search);
  assert.equal(cost(again.req, again.ctx), 1);
  assert.equal(again.reads.url, 0, "the same query and Accept: remembered");
  const parquet = request(search, "application/vnd.apache.parquet");
  assert.equal(cost(parquet.req, parquet.ctx), 10, "another Accept is another cost");
  assert.equal(parquet.reads.url, 1);
  const csv = request(`${search}&format=csv`);
  assert.equal(cost(csv.req, csv.ctx), 10);
  // Room for two: the first query was the least recently used, and is read again.
  const third = request(search);
  assert.equal(cost(third.req, third.ctx), 1);
  assert.equal(third.reads.url, 1);
});
