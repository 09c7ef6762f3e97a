/** `src/http/range-query.ts`: a dataset's query string to a range, and the order of its 400s. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import { HttpError } from "../src/http/http-error.ts";
import { MAX_SPAN_DAYS, parseRangeQuery } from "../src/http/range-query.ts";

const parse = (query: string, extras = {}) => parseRangeQuery(new URLSearchParams(query), extras);

function refused(query: string, code: string, detail?: RegExp, extras = {}) {
  assert.throws(
    () => parse(query, extras),
    (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.equal(error.status, 400);
      assert.equal(error.code, code, `${query}: ${error.detail}`);
      if (detail) assert.match(error.detail, detail);
      return true;
    },
  );
}

const FLAG = {
  flag: {
    schema: v.pipe(
      v.picklist(["true", "false"]),
      v.transform((s) => s === "true"),
    ),
    expected: "'true' or 'false'",
    default: false,
    description: "a flag",
  },
};

test("a valid query gives the half-open range, the interval (1h by default) and the options", () => {
  const r = parse("start=2024-01-01&end=2024-01-01T06:00:00%2B02:00");
  assert.equal(r.start, Date.parse("2024-01-01T00:00:00Z"));
  assert.equal(r.end, Date.parse("2024-01-01T04:00:00Z"));
  assert.equal(r.interval, "1h");
  assert.deepEqual(r.options, {});
  assert.equal(r.startFractional, false);
  const d = parse("start=2024-01-01T00:00:00.5Z&end=2024-02-01&interval=1d&flag=true", FLAG);
  assert.equal(d.interval, "1d");
  assert.equal(d.startFractional, true);
  assert.deepEqual(d.options, { flag: true });
  assert.deepEqual(parse("start=2024-01-01&end=2024-01-02", FLAG).options, { flag: false });
});

test("each rule has its code and a detail that says how to fix it", () => {
  refused("end=2024-01-02", "missing_params", /Missing required query parameter: start/);
  refused("start=&end=", "missing_params", /parameters: start, end/);
  refused(
    "start=2024-01-01&end=2024-01-02&limit=5",
    "unknown_parameter",
    /'limit'. Allowed: start, end, interval/,
  );
  refused("start=2024-01-01&end=2024-01-02&start=2024-01-01", "invalid_parameter", /more than once/);
  refused(
    "start=2024-01-01&end=2024-01-02&flag=yes",
    "invalid_parameter",
    /'flag' must be 'true' or 'false', not 'yes'/,
    FLAG,
  );
  refused("start=2024-01-01T00:00&end=2024-01-02", "invalid_datetime", /no UTC offset.*2024-01-01T00:00Z/);
  refused("start=2024-02-30&end=2024-03-02", "invalid_datetime", /not a real date-time/);
  refused("start=yesterday&end=2024-01-02", "invalid_datetime", /not an ISO-8601 date-time/);
  refused(
    "start=2024-01-01&end=2024-01-02&interval=15m",
    "unsupported_interval",
    /Supported intervals: 1h, 1d/,
  );
  refused("start=2024-01-02&end=2024-01-02", "bad_request", /'end' must be after 'start'/);
  refused("start=2024-01-01&end=2025-01-02", "range_too_large", /366 days.*interval 1d/);
  refused(
    "start=2000-01-01&end=2024-01-01&interval=1d",
    "range_too_large",
    /7320 days, the longest allowed at interval 1d\. Split/,
  );
});

test("when several rules are broken, the first in the documented order wins", () => {
  // unknown parameter before a bad date, a bad date before a bad interval, interval before order
  refused("start=nope&end=2024-01-02&x=1", "unknown_parameter");
  refused("start=nope&end=2024-01-02&interval=2h", "invalid_datetime");
  refused("start=2024-01-03&end=2024-01-02&interval=2h", "unsupported_interval");
  refused("end=2024-01-02&x=1", "missing_params");
});

test("the longest spans are allowed, inclusive", () => {
  const day = 86_400_000;
  const start = Date.parse("2024-01-01T00:00:00Z");
  for (const interval of ["1h", "1d"] as const) {
    const end = new Date(start + MAX_SPAN_DAYS[interval] * day).toISOString();
    assert.equal(
      parse(`start=2024-01-01&end=${end}&interval=${interval}`).end - start,
      MAX_SPAN_DAYS[interval] * day,
    );
  }
});
