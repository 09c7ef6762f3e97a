/** The per-request reply: collected headers go out with the writer's in one head. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Reply } from "../src/http/reply.ts";

async function serve(t: import("node:test").TestContext, write: (res: ServerResponse) => void) {
  const server = createServer((_req, res) => write(res));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
    redirect: "manual",
  });
  await response.arrayBuffer();
  return response;
}

test("collected headers come first, and a name the writer gives (in any case) replaces the collected one", async (t) => {
  const res = await serve(t, (raw) =>
    new Reply(raw)
      .header("X-Request-Id", "abc")
      .header("Vary", "Origin")
      .header("RateLimit", "old")
      .header("ratelimit", "new")
      .writeHead(200, { vary: "Origin, Accept-Encoding", "Content-Type": "text/plain", "Content-Length": 2 })
      .end("ok"),
  );
  assert.equal(res.headers.get("x-request-id"), "abc");
  assert.equal(res.headers.get("ratelimit"), "new", "a later collected value replaces an earlier one");
  assert.equal(res.headers.get("vary"), "Origin, Accept-Encoding", "the writer's, not both");
  assert.equal(res.headers.get("content-type"), "text/plain");
});

test("a list value gives a line per item, and collected reads back in any case", async (t) => {
  let seen: string | undefined;
  const res = await serve(t, (raw) => {
    const reply = new Reply(raw).header("Vary", "Origin");
    seen = reply.collected("vary");
    reply.writeHead(303, { Location: "/x", "Set-Cookie": ["a=1", "b=2"], "Content-Length": 0 }).end();
  });
  assert.equal(seen, "Origin");
  assert.equal(res.status, 303);
  assert.deepEqual(res.headers.getSetCookie(), ["a=1", "b=2"]);
  assert.equal(res.headers.get("vary"), "Origin");
});

test("without collected headers, the writer's head goes out as it is", async (t) => {
  const res = await serve(t, (raw) => new Reply(raw).writeHead(204).end());
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("x-request-id"), null);
});

test("names match without regard to case only", async (t) => {
  const res = await serve(t, (raw) =>
    new Reply(raw)
      .header("X-Tag", "collected")
      .header("X-A^", "collected")
      .writeHead(200, { "x-tAG": "written", "X-A~": "written", "Content-Length": 0 })
      .end(),
  );
  assert.equal(res.headers.get("x-tag"), "written", "the same name in another case is replaced");
  assert.equal(
    res.headers.get("x-a^"),
    "collected",
    "a name that differs in a character that is not a letter stays",
  );
  assert.equal(res.headers.get("x-a~"), "written");
});
