import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, startServer, tempDir } from "./helpers.ts";

const STATE = "/api/v1/grid/system-state?start=2025-01-02&end=2025-01-03";
const NOTEBOOK = "https://observablehq.com";
/** What a browser sends before a cross-origin GET with X-API-KEY. */
const PREFLIGHT: RequestInit = {
  method: "OPTIONS",
  headers: {
    Origin: NOTEBOOK,
    "Access-Control-Request-Method": "GET",
    "Access-Control-Request-Headers": "x-api-key",
  },
};

async function server(t: Parameters<typeof tempDir>[0], cors?: string[]) {
  const dir = tempDir(t);
  ingestTexts(dir, { "s.csv": generateSampleExport({ firstDay: "2025-01-01", days: 3 }) });
  return startServer(t, dir, { corsOrigins: cors === undefined ? undefined : new Set(cors) });
}

test("every response says nosniff: data, errors, documents and health", async (t) => {
  const s = await server(t);
  for (const [path, status] of [
    [STATE, 200],
    ["/nowhere", 404],
    ["/api/v1/openapi.json", 200],
    ["/healthz", 200],
  ] as const) {
    const res = await s.get(path);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
    assert.ok(res.status === status || path === "/healthz", `${path}: ${res.status}`);
  }
});

test("a GET with a body is refused with 400", async (t) => {
  const s = await server(t);
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      s.url + STATE,
      { method: "GET", headers: { "X-API-KEY": s.key, "Content-Type": "text/plain", "Content-Length": 5 } },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on("error", reject);
    req.end("hello");
  });
  assert.equal(status, 400);
  assert.deepEqual(JSON.parse(body), {
    error: "bad_request",
    detail: "A GET request carries no body; send the query in the URL.",
  });
});

test("CORS is off by default: no Access-Control headers for any origin", async (t) => {
  const s = await server(t);
  const res = await s.get(STATE, { headers: { Origin: NOTEBOOK } });
  assert.equal(res.headers.get("access-control-allow-origin"), null);
  const preflight = await s.raw(STATE, PREFLIGHT);
  assert.notEqual(preflight.status, 204);
});

test("a listed origin gets its preflight answered without a key and may send X-API-KEY and read the limits", async (t) => {
  const s = await server(t, [NOTEBOOK]);
  const preflight = await s.raw(STATE, PREFLIGHT);
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), NOTEBOOK);
  assert.match(preflight.headers.get("access-control-allow-headers")!, /X-API-KEY/);
  assert.equal(preflight.headers.get("access-control-allow-methods"), "GET, HEAD");
  const res = await s.get(STATE, { headers: { Origin: NOTEBOOK } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("access-control-allow-origin"), NOTEBOOK);
  assert.match(res.headers.get("access-control-expose-headers")!, /RateLimit/);
  assert.match(res.headers.get("vary")!, /Origin/);
  const other = await s.get(STATE, { headers: { Origin: "https://evil.example" } });
  assert.equal(other.headers.get("access-control-allow-origin"), null);
});

test("an allowed origin's answers, a refusal included, carry its CORS headers once, and Vary joins Origin with the answer's own", async (t) => {
  const s = await server(t, [NOTEBOOK]);
  const ok = await s.get(STATE, { headers: { Origin: NOTEBOOK } });
  assert.equal(ok.headers.get("vary"), "Origin, Accept, Accept-Encoding");
  const notModified = await s.get(STATE, {
    headers: { Origin: NOTEBOOK, "If-None-Match": ok.headers.get("etag")! },
  });
  assert.equal(notModified.status, 304);
  assert.equal(notModified.headers.get("vary"), "Origin, Accept, Accept-Encoding");
  // A browser reads a refusal only when it carries the origin: the 401 must, with its request id.
  const refused = await s.raw(STATE, { headers: { Origin: NOTEBOOK } });
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get("access-control-allow-origin"), NOTEBOOK);
  assert.equal(refused.headers.get("vary"), "Origin");
  assert.match(refused.headers.get("x-request-id")!, /./);
  assert.equal(refused.headers.get("x-content-type-options"), "nosniff");
});
