import { test } from "node:test";
import assert from "node:assert/strict";
import { startServer, tempDir } from "./helpers.ts";

async function problem(
  server: Awaited<ReturnType<typeof startServer>>,
  query: string,
  path = "/api/v1/grid/system-state",
) {
  const res = await server.get(`${path}?${query}`);
  const body = (await res.json()) as { error?: string; detail: string };
  return { status: res.status, ...body };
}

const OK_RANGE = "start=2024-01-01T00:00:00Z&end=2024-01-02T00:00:00Z";

test("each 400 code for the conditions of the contract", async (t) => {
  const server = await startServer(t, tempDir(t));
  const cases: [string, string, RegExp][] = [
    ["", "missing_params", /Missing required query parameters: start, end/],
    ["start=2024-01-01", "missing_params", /Missing required query parameter: end/],
    ["end=2024-01-01", "missing_params", /parameter: start/],
    ["start=&end=2024-01-02", "missing_params", /parameter: start/],
    [
      `${OK_RANGE}&foo=1`,
      "unknown_parameter",
      /Unknown query parameter: 'foo'. Allowed: start, end, interval/,
    ],
    [`${OK_RANGE}&start=2024-01-01`, "invalid_parameter", /'start' is given more than once/],
    [`${OK_RANGE}&interval=1h&interval=1d`, "invalid_parameter", /'interval' is given more than once/],
    [
      "start=yesterday&end=2024-01-02",
      "invalid_datetime",
      /'start' is not an ISO-8601 date-time: 'yesterday'/,
    ],
    ["start=2024-02-30&end=2024-03-02", "invalid_datetime", /'start' is not a real date-time/],
    ["start=2024-01-01T25:00:00Z&end=2024-03-02", "invalid_datetime", /not a real date-time/],
    ["start=2024-01-01&end=2024-01-02T00:00:00", "invalid_datetime", /'end' has no UTC offset.*Add 'Z'/],
    [
      "start=2024-01-01&end=9999-12-31T23:00:00-23:59",
      "invalid_datetime",
      /'end' is outside the years 1900 to 9999 \(in UTC, after its offset\)/,
    ],
    [
      "start=0100-01-01T00:30:00%2B01:00&end=2024-01-01",
      "invalid_datetime",
      /'start' is outside the years 1900 to 9999/,
    ],
    ["start=0050-01-01&end=2024-01-01", "invalid_datetime", /'start' is outside the years 1900 to 9999/],
    [
      `${OK_RANGE}&interval=5m`,
      "unsupported_interval",
      /Unsupported interval '5m'. Supported intervals: 1h, 1d/,
    ],
    [`${OK_RANGE}&interval=`, "unsupported_interval", /Supported intervals: 1h, 1d/],
    ["start=2024-01-02&end=2024-01-01", "bad_request", /'end' must be after 'start'/],
    ["start=2024-01-01&end=2024-01-01", "bad_request", /'end' must be after 'start'/],
    ["start=2024-01-01&end=2025-01-02T00:00:00.001Z", "range_too_large", /more than 366 days.*interval 1h/],
    ["start=2000-01-01&end=2020-12-31&interval=1d", "range_too_large", /more than 7320 days.*interval 1d/],
  ];
  for (const [query, code, detail] of cases) {
    const body = await problem(server, query);
    assert.equal(body.status, 400, query);
    assert.equal(body.error, code, query);
    assert.match(body.detail, detail, query);
  }
});

test("exactly the longest span is allowed at each interval", async (t) => {
  const server = await startServer(t, tempDir(t));
  // 2024 is a leap year: 2024-01-01 to 2025-01-01 is 366 days.
  assert.equal((await server.get("/api/v1/grid/system-state?start=2024-01-01&end=2025-01-01")).status, 200);
  assert.equal((await server.get("/api/v1/generation/mix?start=2024-01-01&end=2025-01-01")).status, 200);
  // 7320 days after 2000-01-01 is 2020-01-16.
  const daily = await server.get(
    "/api/v1/generation/mix?start=2000-01-01&end=2020-01-16T00:00:00Z&interval=1d",
  );
  assert.equal(daily.status, 200);
  assert.equal(
    (
      await problem(
        server,
        "start=2000-01-01&end=2020-01-16T00:00:00.001Z&interval=1d",
        "/api/v1/generation/mix",
      )
    ).error,
    "range_too_large",
  );
});

test("when several rules are broken, the first in the contract's order wins", async (t) => {
  const server = await startServer(t, tempDir(t));
  const order: [string, string][] = [
    ["foo=1&interval=5m&start=bad", "missing_params"],
    ["start=bad&end=bad&interval=5m&foo=1&foo=2", "unknown_parameter"],
    ["start=bad&end=bad&interval=5m&interval=1h", "invalid_parameter"],
    ["start=bad&end=2024-01-01&interval=5m", "invalid_datetime"],
    ["start=2024-01-02&end=2024-01-01&interval=5m", "unsupported_interval"],
    ["start=2030-01-02&end=2000-01-01&interval=1h", "bad_request"],
  ];
  for (const [query, code] of order) assert.equal((await problem(server, query)).error, code, query);
});

test("generation mix validates exactly like system state", async (t) => {
  const server = await startServer(t, tempDir(t));
  const body = await problem(server, "start=2024-01-01T00:00&end=2024-01-02", "/api/v1/generation/mix");
  assert.equal(body.error, "invalid_datetime");
  assert.match(body.detail, /no UTC offset/);
});

test("400 bodies carry exactly error and detail", async (t) => {
  const server = await startServer(t, tempDir(t));
  const res = await server.get("/api/v1/grid/system-state");
  assert.equal(res.status, 400);
  assert.deepEqual(Object.keys(await res.json()), ["error", "detail"]);
});
