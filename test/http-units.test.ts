/** The HTTP layer's pieces on their own: negotiation, conditional requests, request targets, routing. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp, requestIds, requestUrl, splitTarget } from "../src/http/app.ts";
import { type AccessLogEntry, LineMaker, plainText } from "../src/http/access-log.ts";
import { chooseEncoding, chooseFormat } from "../src/http/negotiation.ts";
import { createRouter } from "../src/http/router.ts";
import { EntityTag } from "../src/http/entity-tag.ts";
import { modifiedAt, notModified } from "../src/http/send.ts";

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
  // Once the tags were sent, the same answers come from the comparison with what was sent.
  const tag = new EntityTag("abc");
  assert.equal(tag.text("identity"), '"abc"');
  assert.equal(tag.text("br"), '"abc-br"');
  assert.equal(tag.text("gzip"), '"abc-gz"');
  assert.equal(tag.text("br"), '"abc-br"', "asked again, the same");
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
  const modified = modifiedAt(Date.parse("2026-01-01T10:00:00.900Z"));
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

test("a target split without URL gives exactly URL's path and query, and odd ones are left to URL", () => {
  const targets = [
    "/api/v1/grid/system-state?start=2024-01-01T00:00:00Z&end=2024-01-02",
    "/api/v1/x?",
    "/api/v1/x",
    "//evil.example/api?a=1",
    "/a/b/?q=%20&r=a+b",
    "/a/./b",
    "/a/../b",
    "/a/%2e%2e/b",
    "/a b?c",
    "/a?b c",
    "/a?it's",
    "/a#frag",
    "/a\\b",
    '/a?x="y"',
    "http://host/a",
    "/é",
  ];
  // And random targets over characters URL treats specially.
  const alphabet = "/?.%#'\" <>\\aZ09-_~!$&()*+,;=:@";
  let seed = 7;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 5_000; i++) {
    let target = "/";
    const length = Math.floor(next() * 12);
    for (let j = 0; j < length; j++) target += alphabet[Math.floor(next() * alphabet.length)];
    targets.push(target);
  }
  let split = 0;
  for (const target of targets) {
    const simple = splitTarget(target);
    if (simple === undefined) continue;
    split++;
    const url = requestUrl(target);
    assert.deepEqual(simple, { path: url.pathname, search: url.search }, target);
  }
  assert.ok(split > 1_000, `most random targets take the plain path (${split})`);
  for (const odd of ["/a/./b", "/a/%2e%2e/b", "/a b?c", "/a?it's", "/a#frag", "http://host/a"])
    assert.equal(splitTarget(odd), undefined, odd);
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

test("the access log's request id and time are plain texts, whatever id the client sends", async (t) => {
  // The log writes them without a search (PlainText): a client's id is kept only when made of
  // REQUEST_ID's characters, every one of which JSON writes as it is; any other is replaced.
  const entries: AccessLogEntry[] = [];
  const app = createApp({
    routes: [
      {
        path: "/x",
        methods: ["GET"],
        scope: null,
        handler: (_req, reply) => void reply.writeHead(204).end(),
      },
    ],
    log: (entry) => entries.push(entry),
  });
  const server = createServer(app);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
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
  for (const id of sent) await (await fetch(url, { headers: { "X-Request-Id": id } })).arrayBuffer();
  await (await fetch(url)).arrayBuffer();
  for (let i = 0; i < 50 && entries.length < sent.length + 1; i++)
    await new Promise((r) => setTimeout(r, 10));
  assert.equal(entries.length, sent.length + 1);
  const maker = new LineMaker();
  for (const [i, e] of entries.entries()) {
    assert.ok(plainText(e.request_id) !== undefined && plainText(e.time) !== undefined, e.request_id);
    assert.deepEqual(JSON.parse(maker.line(e)), JSON.parse(JSON.stringify(e)));
    if (i < 3) assert.equal(e.request_id, sent[i], "a sane id is kept");
    else assert.match(e.request_id, /^[0-9a-f]{12}-[0-9a-z]+$/, `${JSON.stringify(sent[i])} is replaced`);
  }
  // Every character REQUEST_ID could let through is one JSON writes as it is.
  for (const c of "ABCXYZabcxyz0123456789._:-") assert.ok(plainText(c) !== undefined, c);
});
