import { test } from "node:test";
import assert from "node:assert/strict";
import { portalUrls } from "../src/pull/portal-urls.ts";
import { loadPullConfig } from "../src/pull/pull-config.ts";
import { retryAfterMs } from "../src/pull/download.ts";

test("the folder is the SAST month of now, the fallback the month before, across a year's end", () => {
  const base = "https://portal.example/uploads/";
  assert.deepEqual(portalUrls(base, "a.csv", Date.parse("2023-02-21T10:00:00Z")), [
    "https://portal.example/uploads/2023/02/a.csv",
    "https://portal.example/uploads/2023/01/a.csv",
  ]);
  // 2024-01-01 01:00 SAST is still 2023-12-31 in UTC: SAST decides.
  assert.deepEqual(portalUrls(base, "a.csv", Date.parse("2023-12-31T23:00:00Z")), [
    "https://portal.example/uploads/2024/01/a.csv",
    "https://portal.example/uploads/2023/12/a.csv",
  ]);
});

test("Retry-After is read as seconds or as an HTTP date; anything else is ignored", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryAfterMs("7", now), 7000);
  assert.equal(retryAfterMs("Thu, 01 Jan 2026 00:00:30 GMT", now), 30_000);
  assert.equal(retryAfterMs("Wed, 31 Dec 2025 00:00:00 GMT", now), 0, "a date in the past means now");
  assert.equal(retryAfterMs("soon", now), undefined);
  assert.equal(retryAfterMs(undefined, now), undefined);
});

test("pull settings: defaults, overrides, and a clear error for each bad one", () => {
  const defaults = loadPullConfig({});
  assert.equal(defaults.baseUrl, "https://www.eskom.co.za/dataportal/wp-content/uploads");
  assert.equal(defaults.files.length, 3);
  assert.deepEqual(defaults.policy, {
    timeoutMs: 30_000,
    attempts: 4,
    backoffMs: 2000,
    maxBackoffMs: 60_000,
  });
  const set = loadPullConfig({
    PORTAL_URL: "http://127.0.0.1:9/x",
    PORTAL_FILES: " a.csv, b.csv ",
    PULL_TIMEOUT_S: "0.5",
  });
  assert.deepEqual(set.files, ["a.csv", "b.csv"]);
  assert.equal(set.policy.timeoutMs, 500);
  assert.throws(
    () => loadPullConfig({ PORTAL_URL: "not a url" }),
    /Invalid PORTAL_URL: "not a url" must be a URL/,
  );
  assert.throws(() => loadPullConfig({ PORTAL_FILES: "../etc/passwd" }), /Invalid PORTAL_FILES/);
  assert.throws(
    () => loadPullConfig({ PULL_ATTEMPTS: "0" }),
    /Invalid PULL_ATTEMPTS: "0" must be at least 1/,
  );
});
