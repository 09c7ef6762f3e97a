import { test } from "node:test";
import assert from "node:assert/strict";
import { createKey } from "../src/keys/key-admin.ts";
import { cacheControlAt, secondsToNextHour } from "../src/http/dataset-handler.ts";
import { exportCsv, ingestTexts, startServer, tempDir } from "./helpers.ts";

const PATH = "/api/v1/grid/system-state?start=2025-06-02&end=2025-06-03";

function rows(day: string, demand: number): (string | number)[][] {
  // SAST 02:00 .. 23:00 of `day` are 00:00 .. 21:00 UTC of the same day.
  return Array.from({ length: 22 }, (_, h) => {
    const hour = h + 2;
    const h12 = hour % 12 === 0 ? 12 : hour % 12;
    return [`${day} ${String(h12).padStart(2, "0")}:00:00 ${hour < 12 ? "AM" : "PM"}`, `${demand + h}.0`];
  });
}

async function setup(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "a.csv": exportCsv(
      ["Residual Demand"],
      [...rows("2025-06-01", 20_000), ...rows("2025-06-02", 21_000), ...rows("2025-06-03", 22_000)],
    ),
  });
  let now = Date.parse("2025-06-03T10:59:30Z");
  const server = await startServer(t, dir, { now: () => now });
  return { dir, server, setNow: (ms: number) => void (now = ms) };
}

test("dataset responses carry a strong ETag, Last-Modified and Cache-Control up to the next hour", async (t) => {
  const { server } = await setup(t);
  const res = await server.get(PATH);
  assert.match(res.headers.get("etag")!, /^"[A-Za-z0-9_-]{32}(-gz|-br)?"$/);
  assert.ok(!res.headers.get("etag")!.startsWith("W/"));
  assert.ok(Date.parse(res.headers.get("last-modified")!) > Date.parse("2020-01-01"));
  assert.equal(res.headers.get("cache-control"), "private, max-age=30");
  assert.equal(secondsToNextHour(Date.parse("2025-06-03T11:00:00Z")), 3600);
  assert.equal(secondsToNextHour(Date.parse("2025-06-03T11:59:59.500Z")), 1);
});

test("Cache-Control follows the clock: its text is made once a second, and a later second gets its own", async (t) => {
  const { server, setNow } = await setup(t);
  assert.equal((await server.get(PATH)).headers.get("cache-control"), "private, max-age=30");
  setNow(Date.parse("2025-06-03T10:59:50.400Z"));
  assert.equal((await server.get(PATH)).headers.get("cache-control"), "private, max-age=10");
  setNow(Date.parse("2025-06-03T11:00:00Z"));
  assert.equal((await server.get(PATH)).headers.get("cache-control"), "private, max-age=3600");

  assert.equal(cacheControlAt(Date.parse("2025-06-03T10:00:00.100Z")), "private, max-age=3600");
  assert.equal(cacheControlAt(Date.parse("2025-06-03T10:00:01.000Z")), "private, max-age=3599");
  assert.equal(cacheControlAt(Date.parse("2025-06-03T10:59:59.500Z")), "private, max-age=1");
});

test("If-None-Match with the current ETag gives a 304 with no body and the same validators", async (t) => {
  const { server } = await setup(t);
  const first = await server.get(PATH);
  const etag = first.headers.get("etag")!;
  const again = await server.get(PATH, { headers: { "If-None-Match": etag } });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");
  assert.equal(again.headers.get("etag"), etag);
  assert.equal(again.headers.get("cache-control"), "private, max-age=30");
  assert.equal((await server.get(PATH, { headers: { "If-None-Match": '"other", ' + etag } })).status, 304);
  assert.equal((await server.get(PATH, { headers: { "If-None-Match": "*" } })).status, 304);
  assert.equal((await server.get(PATH, { headers: { "If-None-Match": '"stale"' } })).status, 200);
});

test("If-Modified-Since gives a 304 unless the store changed since, and yields to If-None-Match", async (t) => {
  const { server } = await setup(t);
  const first = await server.get(PATH);
  const lastModified = first.headers.get("last-modified")!;
  assert.equal((await server.get(PATH, { headers: { "If-Modified-Since": lastModified } })).status, 304);
  const before = new Date(Date.parse(lastModified) - 60_000).toUTCString();
  assert.equal((await server.get(PATH, { headers: { "If-Modified-Since": before } })).status, 200);
  assert.equal((await server.get(PATH, { headers: { "If-Modified-Since": "yesterday-ish" } })).status, 200);
  const both = await server.get(PATH, {
    headers: { "If-Modified-Since": lastModified, "If-None-Match": '"stale"' },
  });
  assert.equal(both.status, 200, "If-None-Match takes precedence");
});

test("a re-ingest that changes the range changes its ETag; one elsewhere does not", async (t) => {
  const { dir, server } = await setup(t);
  const etag = async (path = PATH) => (await server.get(path)).headers.get("etag");
  const before = await etag();
  const daily = await etag("/api/v1/grid/system-state?start=2025-06-02&end=2025-06-03&interval=1d");
  ingestTexts(dir, { "old.csv": exportCsv(["Residual Demand"], [["2025-05-20 10:00:00 AM", "21000.0"]]) });
  assert.equal(await etag(), before, "a day outside the range changed nothing here");
  ingestTexts(dir, { "fix.csv": exportCsv(["Residual Demand"], [["2025-06-02 10:00:00 AM", "59999.0"]]) });
  const after = await etag();
  assert.notEqual(after, before);
  assert.equal((await server.get(PATH, { headers: { "If-None-Match": before! } })).status, 200);
  assert.notEqual(await etag("/api/v1/grid/system-state?start=2025-06-02&end=2025-06-03&interval=1d"), daily);
  // The first hour's ramp depends on the day before: a change there changes the range too.
  const mid = await etag();
  ingestTexts(dir, { "prev.csv": exportCsv(["Eskom OCGT Generation"], [["2025-06-01 11:00:00 PM", "5.0"]]) });
  assert.notEqual(await etag(), mid);
});

test("ETags differ by format, interval and query, and are stable across requests", async (t) => {
  const { server } = await setup(t);
  const tags = await Promise.all(
    [
      PATH,
      `${PATH}&format=csv`,
      `${PATH}&interval=1d`,
      "/api/v1/generation/mix?start=2025-06-02&end=2025-06-03",
      PATH,
    ].map(async (p) =>
      (await server.get(p, { headers: { "Accept-Encoding": "identity" } })).headers.get("etag"),
    ),
  );
  assert.equal(new Set(tags.slice(0, 4)).size, 4);
  assert.equal(tags[4], tags[0]);
});

test("a 304 counts toward the limit, like any allowed request", async (t) => {
  const { dir, server } = await setup(t);
  const { key } = createKey(dir, { name: "poller", account: "a", limits: { normalized_data: 2 } });
  const first = await server.raw(PATH, { headers: { "X-API-KEY": key } });
  const etag = first.headers.get("etag")!;
  const second = await server.raw(PATH, { headers: { "X-API-KEY": key, "If-None-Match": etag } });
  assert.equal(second.status, 304);
  assert.equal(second.headers.get("ratelimit"), '"normalized_data";r=0;t=60');
  assert.equal(
    (await server.raw(PATH, { headers: { "X-API-KEY": key, "If-None-Match": etag } })).status,
    429,
  );
});
