/** The HTTP layer's pieces on their own: negotiation, conditional requests, request targets, routing. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp, requestIds, requestUrl } from "../src/http/app.ts";
import { type AccessLogEntry, accessLogLine } from "../src/http/access-log.ts";
import { chooseEncoding, chooseFormat } from "../src/http/negotiation.ts";
import { createRouter } from "../src/http/router.ts";
import { EntityTag } from "../src/http/entity-tag.ts";
import { notModified } from "../src/http/send.ts";

test("format: the parameter wins, else Accept, with JSON whenever it is at least as welcome", () => {
  assert.equal(chooseFormat("csv", "application/json"), "csv");
  assert.equal(chooseFormat(undefined, undefined), "json");
  assert.equal(chooseFormat(undefined, "text/csv"), "csv");
  assert.equal(chooseFormat(undefined, "text/csv;q=0.5, application/json"), "json");
  assert.equal(chooseFormat(undefined, "text/csv, */*;q=0.1"), "csv");
  assert.equal(chooseFormat(undefined, "*/*"), "json");
  assert.equal(chooseFormat(undefined, "image/png"), "json");
});

test("coding: br before gzip at equal weight, q=0 refuses, * covers the rest", () => {
  assert.equal(chooseEncoding(undefined), "identity");
  assert.equal(chooseEncoding("gzip, br"), "br");
  assert.equal(chooseEncoding("gzip;q=1, br;q=0.5"), "gzip");
  assert.equal(chooseEncoding("br;q=0, gzip"), "gzip");
  assert.equal(chooseEncoding("*"), "br");
  assert.equal(chooseEncoding("*;q=0"), "identity");
  assert.equal(chooseEncoding("identity"), "identity");
  assert.equal(chooseEncoding("br;q=nonsense"), "identity", "a malformed weight counts as 0");
});

const withHeaders = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

test("If-None-Match matches weakly and across codings, and outranks If-Modified-Since", () => {
  assert.equal(notModified(withHeaders({ "if-none-match": '"abc"' }), "abc", null), true);
  assert.equal(notModified(withHeaders({ "if-none-match": 'W/"abc-gz"' }), "abc", null), true);
  assert.equal(notModified(withHeaders({ "if-none-match": '"x", "abc-br"' }), "abc", null), true);
  assert.equal(notModified(withHeaders({ "if-none-match": "*" }), "abc", null), true);
  assert.equal(notModified(withHeaders({ "if-none-match": '"abd"' }), "abc", null), false);
  // Each coding's tag, and the key its body is kept under.
  const tag = new EntityTag("abc");
  assert.equal(tag.text("identity"), '"abc"');
  assert.equal(tag.text("br"), '"abc-br"');
  assert.equal(tag.text("gzip"), '"abc-gz"');
  assert.deepEqual([tag.key("identity"), tag.key("gzip"), tag.key("br")], ["abc", "abc-gz", "abc-br"]);
  for (const [header, want] of [
    ['"abc"', true],
    ['"abc-br"', true],
    ['"abc-gz"', true],
    ['W/"abc"', true],
    ['"abd"', false],
    ['"abc" ', true],
    ['"ab"', false],
  ] as const) {
    assert.equal(notModified(withHeaders({ "if-none-match": header }), "abc", null), want, header);
  }
  const modified = Date.parse("2026-01-01T10:00:00.900Z");
  const since = "Thu, 01 Jan 2026 10:00:00 GMT";
  assert.equal(
    notModified(withHeaders({ "if-modified-since": since }), "abc", modified),
    true,
    "whole seconds",
  );
  assert.equal(
    notModified(withHeaders({ "if-none-match": '"other"', "if-modified-since": since }), "abc", modified),
    false,
    "If-Modified-Since is ignored when If-None-Match is sent",
  );
  assert.equal(notModified(withHeaders({ "if-modified-since": "yesterday" }), "abc", modified), false);
  assert.equal(notModified(withHeaders({}), "abc", modified), false);
});

test("a request target is a path even when it starts with //, and an impossible one is no route's", () => {
  assert.equal(requestUrl("/api/v1/x?a=1").pathname, "/api/v1/x");
  assert.equal(requestUrl("//evil.example/api").pathname, "//evil.example/api");
  assert.equal(requestUrl("http://host/api/v1/x").pathname, "/api/v1/x", "absolute form");
  assert.equal(requestUrl(undefined).pathname, "/");
  const router = createRouter([{ path: "/api", methods: ["GET"], scope: null, handler: () => {} }]);
  assert.equal(router(requestUrl("//[::1/x").pathname), undefined);
});

test("the router finds exact paths and ignores one trailing slash", () => {
  const handler = () => {};
  const router = createRouter([
    { path: "/", methods: ["GET"], scope: null, handler },
    { path: "/a/b", methods: ["GET"], scope: "s", handler },
  ]);
  assert.equal(router("/a/b")?.scope, "s");
  assert.equal(router("/a/b/")?.scope, "s");
  assert.equal(router("/a/b//"), undefined);
  assert.equal(router("/a"), undefined);
  assert.equal(router("/")?.path, "/");
});

test("request ids: one stem per app, then a counter in base 36; two apps never share one", () => {
  const next = requestIds();
  const ids = Array.from({ length: 40 }, () => next());
  assert.match(ids[0]!, /^[0-9a-f]{12}-1$/);
  assert.equal(ids[35]!.split("-")[1], "10", "36 in base 36");
  assert.equal(new Set(ids).size, 40);
  const other = requestIds()();
  assert.notEqual(other.split("-")[0], ids[0]!.split("-")[0]);
});

test("the access log keeps a client's sane request id and replaces any other with one of its own", async (t) => {
  const entries: AccessLogEntry[] = [];
  const sent = [
    "trace-42",
    "a.b_c:d-E9",
    "x".repeat(128),
    'x"y',
    "a\\b",
    "é",
    "x".repeat(129),
    "a b",
    "{}",
    "",
  ];
  // Resolves once every request's entry is logged (an entry is logged when its response closes).
  let allLogged: () => void;
  const logged = new Promise<void>((resolve) => (allLogged = resolve));
  const app = createApp({
    routes: [
      {
        path: "/x",
        methods: ["GET"],
        scope: null,
        handler: (_req, reply) => void reply.writeHead(204).end(),
      },
    ],
    log: (entry) => {
      entries.push(entry);
      if (entries.length === sent.length + 1) allLogged();
    },
  });
  const server = createServer(app);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  for (const id of sent) await (await fetch(url, { headers: { "X-Request-Id": id } })).arrayBuffer();
  await (await fetch(url)).arrayBuffer();
  await logged;
  for (const [i, e] of entries.entries()) {
    assert.deepEqual(JSON.parse(accessLogLine(e)), JSON.parse(JSON.stringify(e)));
    assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    if (i < 3) assert.equal(e.request_id, sent[i], "a sane id is kept");
    else assert.match(e.request_id, /^[0-9a-f]{12}-[0-9a-z]+$/, `${JSON.stringify(sent[i])} is replaced`);
  }
});
