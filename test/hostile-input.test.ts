/**
 * Hostile input as properties (fast-check): whatever the query, path or header, the answer is a
 * documented status with a documented body, never a 500, and nothing outside the store is read.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import fc from "fast-check";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, snapshotDir, startServer, tempDir, type TestServer } from "./helpers.ts";

const DOCUMENTED = new Set([200, 304, 400, 401, 404, 405, 429, 431, 503]);
const PATHS = ["/api/v1/grid/system-state", "/api/v1/generation/mix", "/api/v1/features/grid-stress"];
const RUNS = 250;

async function expectDocumented(res: Response, what: string): Promise<void> {
  assert.ok(DOCUMENTED.has(res.status), `${what}: status ${res.status}`);
  const text = await res.text();
  if (res.status >= 400 && res.status !== 431) {
    const body = JSON.parse(text) as { detail?: unknown; error?: unknown };
    assert.equal(typeof body.detail, "string", `${what}: ${text}`);
    if (res.status === 400) assert.equal(typeof body.error, "string", `${what}: ${text}`);
  }
}

// Values people and fuzzers send: odd dates, huge numbers, unicode, separators, traversal, nulls.
const value = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "2025-01-01",
    "2025-01-01T00:00:00Z",
    "../../etc/passwd",
    "..%2F..%2Fkeys.json",
    "\u0000",
    "9".repeat(400),
    "-271821-04-20T00:00:00Z",
    "+275760-09-13T00:00:00Z",
    "2025-02-30",
    "2025-01-01T25:00:00Z",
    "2025-01-01T00:00:00+99:99",
    "1d",
    "1h",
    "true",
    "csv",
    "",
  ),
  fc.integer().map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);
const name = fc.oneof(
  fc.constantFrom("start", "end", "interval", "format", "as_of", "components", "Start", "start[]", ""),
  fc.string({ unit: "binary", maxLength: 12 }),
);
const query = fc.array(fc.tuple(name, value), { maxLength: 6 });

function encode(pairs: [string, string][]): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
}

async function hostileServer(t: Parameters<typeof tempDir>[0]): Promise<{ server: TestServer; dir: string }> {
  const dir = tempDir(t);
  ingestTexts(dir, { "s.csv": generateSampleExport({ firstDay: "2025-01-01", days: 5 }) });
  const server = await startServer(t, dir);
  return { server, dir };
}

test("any query string on any dataset gets a documented answer", async (t) => {
  const { server, dir } = await hostileServer(t);
  const before = snapshotDir(dir);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...PATHS), query, async (path, pairs) => {
      const res = await server.get(`${path}?${encode(pairs)}`);
      await expectDocumented(res, `${path}?${encode(pairs)}`);
    }),
    { numRuns: RUNS },
  );
  assert.deepEqual(server.errors, [], "no 500 was logged");
  const after = snapshotDir(dir);
  for (const name of Object.keys(before).filter((n) => n.startsWith("readings/"))) {
    assert.equal(after[name], before[name], "the store is read, never written");
  }
});

test("any path, encoded slashes, dot segments and null bytes included, gets a documented answer", async (t) => {
  const { server } = await hostileServer(t);
  const segment = fc.oneof(
    fc.string({ unit: "binary", maxLength: 20 }).map(encodeURIComponent),
    fc.constantFrom(
      "..",
      ".",
      "%2e%2e",
      "%2F",
      "%00",
      "api",
      "v1",
      "grid",
      "system-state",
      "dashboard",
      "keys.json",
    ),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(segment, { maxLength: 6 }), async (segments) => {
      const path = "/" + segments.join("/");
      const res = await server.get(path);
      await expectDocumented(res, path);
    }),
    { numRuns: RUNS },
  );
  assert.deepEqual(server.errors, []);
});

test("any header value (key, conditionals, accept, request id) gets a documented answer", async (t) => {
  const { server } = await hostileServer(t);
  // Header values as HTTP allows them on the wire: visible ASCII, spaces and tabs, and bytes above 0x7F.
  const headerValue = fc.oneof(
    fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 300,
    }),
    fc.constantFrom(
      '"x"',
      "*",
      'W/"abc", "def"',
      "Tue, 21 Feb 2023 09:00:00 GMT",
      "gds_" + "A".repeat(49),
      "",
    ),
  );
  const headerName = fc.constantFrom(
    "X-API-KEY",
    "If-None-Match",
    "If-Modified-Since",
    "Accept",
    "Accept-Encoding",
    "X-Request-Id",
    "Origin",
  );
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }), async (headers) => {
      const init = new Headers();
      init.set("X-API-KEY", server.key);
      for (const [k, v] of headers) init.set(k, v);
      const res = await server.raw(`${PATHS[0]}?start=2025-01-02&end=2025-01-03`, { headers: init });
      await expectDocumented(res, JSON.stringify(headers));
    }),
    { numRuns: RUNS },
  );
  assert.deepEqual(server.errors, []);
});

test("raw bytes in the request line are refused by the parser, never a 500", async (t) => {
  const { server } = await hostileServer(t);
  const port = Number(new URL(server.url).port);
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 60 }), async (bytes) => {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1");
        let text = "";
        socket.on("data", (d) => (text += d.toString("latin1")));
        socket.on("close", () => resolve(text));
        socket.on("error", () => resolve(text));
        socket.end(
          Buffer.concat([
            Buffer.from("GET /"),
            Buffer.from(bytes),
            Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n"),
          ]),
        );
      });
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      assert.ok(status === undefined || DOCUMENTED.has(Number(status)), `status ${status}`);
    }),
    { numRuns: 100 },
  );
  assert.deepEqual(server.errors, []);
});

test("a path starting with // that no URL can hold is a 404, not a crashed process", async (t) => {
  const { server } = await hostileServer(t);
  for (const path of ["//%F2%B9%B1%A7/v1", "//[::1/x", "//a:99999/x"]) {
    const res = await server.get(path);
    assert.equal(res.status, 404, path);
    assert.deepEqual(await res.json(), { detail: "Not found." });
  }
  assert.equal((await server.get("/healthz")).status, 200, "still serving");
});
