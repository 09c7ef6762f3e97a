/**
 * The edges of issue 40's queries that docs/api.md promises: Parquet chosen by Accept, a streamed
 * history's validators and content coding, a stream cut off when the store changes under it or
 * left by its client, the newest hours of an empty store, and the parameters the forecast refuses.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { chooseFormat } from "../src/http/negotiation.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { ingestTexts, startServer, tempDir, waitFor } from "./helpers.ts";

const PARQUET = "application/vnd.apache.parquet";
// 400 days: longer than JSON's 366, so CSV and Parquet stream.
const LONG = "start=2024-01-01T00:00Z&end=2025-02-04T00:00Z";

// 400 sample days, made once for the file's tests.
const SAMPLE = generateSampleExport({ firstDay: "2024-01-01", days: 400 });

async function sampleServer(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": SAMPLE });
  return { dir, server: await startServer(t, dir) };
}

test("Accept chooses Parquet over CSV on a tie, never over JSON; format= wins", () => {
  assert.equal(chooseFormat(undefined, PARQUET), "parquet");
  assert.equal(chooseFormat(undefined, `text/csv, ${PARQUET}`), "parquet");
  assert.equal(chooseFormat(undefined, `text/csv, ${PARQUET};q=0.5`), "csv");
  assert.equal(chooseFormat(undefined, `application/json, ${PARQUET}`), "json");
  assert.equal(chooseFormat(undefined, `*/*, ${PARQUET}`), "json");
  assert.equal(chooseFormat("csv", PARQUET), "csv");
});

test("a streamed history has the validators of any answer: 304 on its ETag, a coding-specific tag, gzip that round-trips", async (t) => {
  const { server } = await sampleServer(t);
  const path = `/api/v1/grid/system-state?${LONG}&format=csv`;
  const plain = await server.get(path, {
    headers: { "X-API-KEY": server.key, "Accept-Encoding": "identity" },
  });
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get("content-length"), null, "streamed");
  const text = await plain.text();
  const gz = await server.raw(path, { headers: { "X-API-KEY": server.key, "Accept-Encoding": "gzip" } });
  assert.equal(gz.headers.get("content-encoding"), "gzip");
  assert.match(gz.headers.get("etag") ?? "", /-gz"$/);
  // fetch decodes a gzip body itself: the bytes equal the identity answer's.
  assert.equal(await gz.text(), text);
  const etag = plain.headers.get("etag")!;
  const again = await server.get(path, {
    headers: { "X-API-KEY": server.key, "Accept-Encoding": "identity", "If-None-Match": etag },
  });
  assert.equal(again.status, 304);
  const parquet = await server.get(`/api/v1/grid/system-state?${LONG}&format=parquet`, {
    headers: { "X-API-KEY": server.key, "Accept-Encoding": "gzip, br" },
  });
  assert.equal(parquet.headers.get("content-encoding"), null, "Parquet is compressed inside, not again");
  const bytes = Buffer.from(await parquet.arrayBuffer());
  assert.equal(bytes.subarray(0, 4).toString(), "PAR1");
  assert.equal(bytes.subarray(-4).toString(), "PAR1");
});

test("a stream is cut off when an ingest changes the store under it, never finished as a mix of two versions", async (t) => {
  const { dir, server } = await sampleServer(t);
  const res = await server.get(`/api/v1/generation/mix?${LONG}&format=csv`, {
    headers: { "X-API-KEY": server.key, "Accept-Encoding": "identity" },
  });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  assert.equal((await reader.read()).done, false, "the first bytes arrive");
  // A revision of one day inside the range lands while the rest is still to be written.
  ingestTexts(dir, { "revision.csv": generateSampleExport({ firstDay: "2024-06-01", days: 1, seed: 99 }) });
  await assert.rejects(async () => {
    for (;;) if ((await reader.read()).done) break;
  }, "the transfer ends before its last chunk");
  assert.equal((await server.get(`/api/v1/generation/mix?start=2024-06-01&end=2024-06-02`)).status, 200);
  assert.deepEqual(server.errors, [], "a stale read is no fault: nothing logged as damage");
});

test("a client that leaves a stream costs nothing: no error, and the next request is answered", async (t) => {
  const { server } = await sampleServer(t);
  const controller = new AbortController();
  const res = await server.get(`/api/v1/generation/mix?${LONG}&format=parquet`, {
    headers: { "X-API-KEY": server.key },
    signal: controller.signal,
  });
  await res.body!.getReader().read();
  controller.abort();
  // Its log line is written once the server has seen the client go.
  await waitFor(() => server.logs.some((l) => l.path === "/api/v1/generation/mix"), "the stream's end");
  assert.equal((await server.get("/api/v1/grid/system-state/latest")).status, 200);
  assert.deepEqual(server.errors, []);
});

test("bad whole-history and column queries are 400s that say why", async (t) => {
  const { server } = await sampleServer(t);
  const tooLong = (await (
    await server.get("/api/v1/grid/system-state?start=2000-01-01&end=2024-01-01&format=csv")
  ).json()) as { error: string; detail: string };
  assert.deepEqual(tooLong, {
    error: "range_too_large",
    detail:
      "The range spans more than 7320 days, the longest allowed at interval 1h in csv and parquet. Split it into several requests.",
  });
  const malformed = (await (
    await server.get("/api/v1/grid/system-state?start=2024-01-01&end=2024-01-02&columns=wind_mw,,pv_mw")
  ).json()) as { error: string; detail: string };
  assert.equal(malformed.error, "invalid_parameter");
  assert.equal(
    malformed.detail,
    "Query parameter 'columns' must be field names separated by commas, not 'wind_mw,,pv_mw'.",
  );
  const week = await server.get("/api/v1/grid/system-state?start=2024-01-01&end=2024-02-01&interval=2w");
  assert.match(
    ((await week.json()) as { detail: string }).detail,
    /Supported intervals: 1h, 1d, 1w, 1mo, 1y, fy\./,
  );
});

test("latest on an empty store is an empty answer, not an error", async (t) => {
  const server = await startServer(t, tempDir(t));
  const res = await server.get("/api/v1/grid/system-state/latest?hours=3");
  assert.equal(res.status, 200);
  const body = (await res.json()) as { meta: { last_available: null }; data: unknown[] };
  assert.equal(body.meta.last_available, null);
  assert.deepEqual(body.data, []);
});

test("the forecast names what it does not take: tz, agg, columns, Parquet and the longer intervals", async (t) => {
  const { server } = await sampleServer(t);
  const base = "/api/v1/forecasts/demand?start=2024-06-01&end=2024-06-02";
  const tz = (await (
    await server.get(`${base}&tz=Africa/Johannesburg&columns=residual_forecast_mw`)
  ).json()) as {
    error: string;
    detail: string;
  };
  assert.deepEqual(tz, {
    error: "invalid_parameter",
    detail: "forecasts.demand does not take 'tz', 'columns': its records are UTC, in JSON or CSV.",
  });
  const parquet = (await (await server.get(`${base}&format=parquet`)).json()) as { detail: string };
  assert.match(parquet.detail, /does not take 'format=parquet'/);
  const month = (await (await server.get(`${base}&interval=1mo`)).json()) as {
    error: string;
    detail: string;
  };
  assert.deepEqual(month, {
    error: "unsupported_interval",
    detail: "Unsupported interval '1mo'. Supported intervals of forecasts.demand: 1h, 1d.",
  });
});

test("a long range counts as one request per 366 days it spans, and RateLimit says what is left", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": SAMPLE });
  const { key } = createKey(dir, { name: "quota", account: "tests", limits: { normalized_data: 10 } });
  const server = await startServer(t, dir);
  const get = (query: string) =>
    server.raw(`/api/v1/generation/mix?${query}`, { headers: { "X-API-KEY": key } });
  const long = await get(`${LONG}&format=csv`); // 400 days: two requests' worth
  assert.equal(long.status, 200);
  assert.match(long.headers.get("ratelimit") ?? "", /^"normalized_data";r=8;t=\d+$/);
  await long.arrayBuffer();
  const json = await get("start=2024-01-01&end=2024-12-31"); // 365 days of JSON: one
  assert.match(json.headers.get("ratelimit") ?? "", /^"normalized_data";r=7;t=\d+$/);
  await json.arrayBuffer();
  // 20 years ask for more than the whole limit: they take all of it, once nothing else counts.
  const whole = await get("start=2006-01-01&end=2025-12-01&format=parquet");
  assert.equal(whole.status, 429);
  assert.match(((await whole.json()) as { detail: string }).detail, /^Request was throttled\./);
  const monthly = await get(`${LONG}&interval=1mo&format=csv`); // periods cost one
  assert.match(monthly.headers.get("ratelimit") ?? "", /^"normalized_data";r=6;t=\d+$/);
  await monthly.arrayBuffer();
});

test("at most two whole histories stream at once: a third begins its body after one of them ended", async (t) => {
  const { server } = await sampleServer(t);
  const events: string[] = [];
  const path = `/api/v1/generation/mix?${LONG}&format=csv`;
  const bodies = await Promise.all(
    [0, 1, 2].map(async (i) => {
      const res = await server.get(path, {
        headers: { "X-API-KEY": server.key, "Accept-Encoding": "identity" },
      });
      const reader = res.body!.getReader();
      const chunks: Uint8Array[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (chunks.length === 0) events.push(`start ${i}`);
        chunks.push(value);
      }
      events.push(`end ${i}`);
      return Buffer.concat(chunks).toString();
    }),
  );
  assert.equal(bodies[1], bodies[0]);
  assert.equal(bodies[2], bodies[0]);
  // Whichever started third did so after one had ended.
  const thirdStart = events.filter((e) => e.startsWith("start"))[2]!;
  assert.ok(events.indexOf(thirdStart) > events.findIndex((e) => e.startsWith("end")), events.join(", "));
});
