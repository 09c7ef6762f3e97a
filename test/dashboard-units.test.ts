import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IncomingMessage } from "node:http";
import { cookie, readCookie } from "../src/dashboard/cookies.ts";
import { csrfToken, tokensMatch } from "../src/dashboard/csrf.ts";
import { createRevealStore } from "../src/dashboard/reveal.ts";
import { clientAddress } from "../src/dashboard/dashboard-http.ts";
import { parseCorsOrigins } from "../src/http/cors.ts";
import { keysPage, type KeyRow } from "../src/dashboard/pages/keys-page.ts";
import type { Viewer } from "../src/dashboard/layout.ts";
import { fileSecret, SECRET_FILE } from "../src/dashboard/dashboard-secret.ts";
import { tempDir } from "./helpers.ts";

const withCookie = (header: string | undefined) =>
  ({ headers: { cookie: header } }) as unknown as IncomingMessage;

test("cookies are read by exact name, and written with the documented attributes", () => {
  assert.equal(readCookie(withCookie("a=1; gds_session=abc; gds_session_x=no"), "gds_session"), "abc");
  assert.equal(readCookie(withCookie("gds_session_x=no"), "gds_session"), undefined);
  assert.equal(readCookie(withCookie(undefined), "gds_session"), undefined);
  assert.equal(
    cookie("n", "v", { maxAge: 60, secure: false }),
    "n=v; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=60",
  );
  assert.match(cookie("n", "", { maxAge: 0, secure: true }), /Max-Age=0; Secure$/);
});

test("a CSRF token is bound to its session and compared whole", () => {
  const token = csrfToken("session-a");
  assert.equal(tokensMatch(token, csrfToken("session-a")), true);
  assert.equal(tokensMatch(token, csrfToken("session-b")), false);
  assert.equal(tokensMatch(token, token.slice(0, -1)), false);
  assert.equal(tokensMatch(token, undefined), false);
  assert.equal(tokensMatch(undefined, token), false);
  assert.equal(tokensMatch("", ""), false, "an empty expectation never matches");
});

test("a revealed secret is taken once, by its own session and kind, within five minutes", async () => {
  let now = 0;
  const reveals = createRevealStore({ now: () => now });
  await reveals.put("s1", { kind: "key", label: "laptop", secret: "gds_x" });
  assert.equal(await reveals.take("s2", "key"), undefined, "another session");
  assert.equal(await reveals.take("s1", "password"), undefined, "another kind");
  assert.deepEqual(await reveals.take("s1", "key"), { kind: "key", label: "laptop", secret: "gds_x" });
  assert.equal(await reveals.take("s1", "key"), undefined, "only once");
  await reveals.put("s1", { kind: "key", label: "late", secret: "gds_y" });
  now += 5 * 60_000;
  assert.equal(await reveals.take("s1", "key"), undefined, "expired");
});

test("CORS origins must be bare origins", () => {
  assert.deepEqual(
    [...parseCorsOrigins(" https://a.org ,http://localhost:8888")],
    ["https://a.org", "http://localhost:8888"],
  );
  assert.equal(parseCorsOrigins(undefined).size, 0);
  assert.throws(() => parseCorsOrigins("https://a.org/"), /not an origin such as https:\/\/a.org/);
  assert.throws(() => parseCorsOrigins("a.org"), /"a.org" is not an origin/);
});

test("the client address is the connection's, or behind N trusted proxies the N-th X-Forwarded-For entry from the end", () => {
  const req = (xff?: string) =>
    ({
      socket: { remoteAddress: "10.0.0.9" },
      headers: xff === undefined ? {} : { "x-forwarded-for": xff },
    }) as unknown as IncomingMessage;
  assert.equal(
    clientAddress(req("1.1.1.1, 2.2.2.2")),
    "10.0.0.9",
    "no proxy trusted: the header is the client's word",
  );
  assert.equal(clientAddress(req("1.1.1.1, 2.2.2.2"), 1), "2.2.2.2");
  assert.equal(clientAddress(req("1.1.1.1, 2.2.2.2, 3.3.3.3"), 2), "2.2.2.2");
  assert.equal(clientAddress(req(), 1), "10.0.0.9", "no header: the connection");
  assert.equal(clientAddress(req("2.2.2.2"), 3), "10.0.0.9", "fewer entries than proxies: the connection");
});

test("the keys list explains the * mark only when some limit carries it", () => {
  const viewer: Viewer = { account: "a", admin: false, csrf: "t" };
  const row = (own: boolean): KeyRow => ({
    id: "k1",
    name: "laptop",
    prefix: "gds_abcdefgh",
    created: "2026-11-22T10:00:00.000Z",
    lastUsed: null,
    revoked: null,
    limits: [{ scope: "features", limit: own ? 30 : 3, own }],
  });
  const plain = keysPage({ viewer, keys: [row(false)] });
  assert.match(plain, /These are the service&#39;s default limits\./);
  assert.doesNotMatch(plain, /\* marks a limit/);
  const marked = keysPage({ viewer, keys: [row(true)] });
  assert.match(marked, /\* marks a limit set for that key/);
  assert.match(marked, /<time datetime="2026-11-22T10:00:00.000Z">2026-11-22 10:00 UTC<\/time>/);
});

test("the dashboard's secret is made once, kept with mode 0600, then only read; a bad one is named", (t) => {
  const dir = tempDir(t);
  const secret = fileSecret(dir);
  assert.equal(secret.length, 32);
  const path = join(dir, SECRET_FILE);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), [SECRET_FILE], "no temp file stays");
  chmodSync(dir, 0o500); // the store turned read-only (root ignores this: the next line still holds)
  try {
    assert.deepEqual(fileSecret(dir), secret, "the kept secret, not a new one");
  } finally {
    chmodSync(dir, 0o700);
  }
  assert.deepEqual(readdirSync(dir), [SECRET_FILE]);
  writeFileSync(path, "not base64 of 32 bytes\n");
  assert.throws(
    () => fileSecret(dir),
    new RegExp(`The dashboard secret in ${path} is not 32 bytes of base64`),
  );
  assert.equal(readFileSync(path, "utf8"), "not base64 of 32 bytes\n", "a bad secret is never replaced");
});
