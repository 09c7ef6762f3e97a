/** `src/http/http-error.ts` and the form reader: one error writer, and bounded forms. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readForm, MAX_FORM_BYTES } from "../src/dashboard/form-body.ts";
import { badRequest, HttpError, writeError } from "../src/http/http-error.ts";
import { Reply } from "../src/http/reply.ts";

async function serve(
  t: import("node:test").TestContext,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const server = createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("an HttpError is written with its status, headers and body; anything else is a 500 that hides its cause", async (t) => {
  const errors = [
    badRequest("invalid_datetime", "'start' is bad."),
    new HttpError(429, "Slow down.", { headers: { "Retry-After": "3" } }),
    new Error("secret database password"),
  ];
  let i = 0;
  const url = await serve(t, (_req, res) => writeError(new Reply(res), errors[i++]));
  const first = await fetch(url);
  assert.equal(first.status, 400);
  assert.deepEqual(await first.json(), { error: "invalid_datetime", detail: "'start' is bad." });
  const second = await fetch(url);
  assert.equal(second.headers.get("retry-after"), "3");
  assert.deepEqual(await second.json(), { detail: "Slow down." });
  const third = await fetch(url);
  assert.equal(third.status, 500);
  const text = await third.text();
  assert.equal(text, '{"detail":"Internal server error."}');
  assert.equal(third.headers.get("content-length"), String(text.length));
});

test("a form is read when urlencoded and small; another type is 415, a large one 413", async (t) => {
  const url = await serve(t, (req, res) => {
    readForm(req).then(
      (form) => res.end(JSON.stringify(Object.fromEntries(form))),
      (error: unknown) => writeError(new Reply(res), error),
    );
  });
  const post = (body: string, type = "application/x-www-form-urlencoded; charset=utf-8") =>
    fetch(url, { method: "POST", body, headers: { "Content-Type": type } });
  assert.deepEqual(await (await post("name=a%20key&x=1")).json(), { name: "a key", x: "1" });
  assert.equal((await post("{}", "application/json")).status, 415);
  assert.equal((await post("x=" + "a".repeat(MAX_FORM_BYTES))).status, 413);
});

test("an HttpError is an answer: status, detail and headers, and a global of Error's is never touched", () => {
  const before = Error.stackTraceLimit;
  const error = new HttpError(429, "Request was throttled.", { headers: { "Retry-After": "3" } });
  assert.equal(Error.stackTraceLimit, before);
  assert.deepEqual(
    [error.status, error.detail, error.headers],
    [429, "Request was throttled.", { "Retry-After": "3" }],
  );
  assert.ok(error instanceof Error);
});
