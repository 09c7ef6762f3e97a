/**
 * The MCP door as an attacker tries it (docs/mcp.md, "Limits and refusals"): a page of a foreign
 * origin (DNS rebinding), a batch that would count many messages as one, messages too large or
 * not JSON-RPC at all, a burst of protocol messages and notifications, and a GET that would hold
 * an event stream open. Against a real server over loopback, with plain `fetch`.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createKey } from "../src/keys/key-admin.ts";
import { MAX_MESSAGE_BYTES } from "../src/mcp/mcp-route.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, startServer, tempDir } from "./helpers.ts";

const LISTED = "https://notebook.example";

async function served(t: TestContext, metadata = 60) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2026-01-01", days: 3 }) });
  const server = await startServer(t, dir, { corsOrigins: new Set([LISTED]) });
  const { key } = createKey(dir, { name: "agent", account: "tests", limits: { metadata } });
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        "X-API-KEY": key,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...headers,
      },
      body,
    });
  return { server, key, post };
}

const message = (method: string, id: number | undefined = 1) =>
  JSON.stringify({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), method, params: {} });

async function rpcErrorOf(res: Response): Promise<{ code: number; message: string }> {
  const body = (await res.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } };
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.id, null);
  return body.error;
}

test("a page of an origin the operator did not list is refused with 403 before its key is looked at", async (t) => {
  const { server, post } = await served(t);
  for (const origin of ["http://attacker.example:8000", "null", server.url, `${LISTED}.attacker.example`]) {
    const refused = await post(message("tools/list"), { Origin: origin });
    assert.equal(refused.status, 403, origin);
    assert.equal(refused.headers.get("ratelimit"), null, "not counted");
    assert.match(
      ((await refused.json()) as { detail: string }).detail,
      /^Requests from the origin ".*" may not use \/mcp: only the origins CORS_ORIGINS lists may\.$/,
    );
  }
  // Without a key too: the refusal does not wait for one.
  const keyless = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { Origin: "http://attacker.example" },
    body: message("tools/list"),
  });
  assert.equal(keyless.status, 403);
  // A listed origin, and a client that sends none (every desktop client), are served.
  assert.equal((await post(message("tools/list"), { Origin: LISTED })).status, 200);
  assert.equal((await post(message("tools/list"))).status, 200);
});

test("one message per request: a batch, a non-object, malformed or oversized JSON are refused", async (t) => {
  const { post, server } = await served(t, 1_000);
  const batch = await post(`[${Array.from({ length: 50 }, (_, i) => message("tools/list", i)).join(",")}]`);
  assert.equal(batch.status, 400);
  assert.deepEqual(await rpcErrorOf(batch), {
    code: -32600,
    message: "Invalid Request: send one JSON-RPC message per request, not a batch",
  });
  assert.equal((await post(`[${message("ping")}]`)).status, 400, "a batch of one too");
  for (const body of ["42", '"tools/list"', "null"]) assert.equal((await post(body)).status, 400, body);
  const malformed = await post('{"jsonrpc":"2.0","id":1,"method":');
  assert.equal(malformed.status, 400);
  assert.equal((await rpcErrorOf(malformed)).code, -32700);
  const padding = "x".repeat(MAX_MESSAGE_BYTES);
  const large = await post(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { padding } }),
  );
  assert.equal(large.status, 413);
  assert.equal((await rpcErrorOf(large)).code, -32000);
  // Streamed without a length: refused once past the bound, the answer still delivered.
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 8; i++) controller.enqueue(new TextEncoder().encode(padding.slice(0, 16 * 1024)));
      controller.close();
    },
  });
  const streamed = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      "X-API-KEY": server.key,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: stream,
    duplex: "half",
  } as RequestInit);
  assert.equal(streamed.status, 413);
  // After all that, the endpoint answers as before.
  assert.equal((await post(message("tools/list"))).status, 200);
});

test("a burst of protocol messages and notifications meets the key's limit: 429 with Retry-After", async (t) => {
  const { post } = await served(t, 5);
  const statuses: number[] = [];
  for (const m of ["initialize", "tools/list", "resources/list", "ping"])
    statuses.push((await post(message(m))).status);
  statuses.push((await post(message("notifications/initialized", undefined))).status);
  assert.ok(
    statuses.every((s) => s >= 200 && s < 300),
    `each answered (a notification too): ${statuses.join(", ")}`,
  );
  const refused = await post(message("ping"));
  assert.equal(refused.status, 429);
  assert.match(refused.headers.get("retry-after")!, /^\d+$/);
});

test("no event stream is held open: GET and DELETE are 405, naming POST", async (t) => {
  const { server } = await served(t);
  for (const method of ["GET", "DELETE"]) {
    const res = await fetch(`${server.url}/mcp`, {
      method,
      headers: { "X-API-KEY": server.key, Accept: "text/event-stream" },
    });
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get("allow"), "POST");
    await res.arrayBuffer();
  }
});
