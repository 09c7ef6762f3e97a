import { createAccount } from "../src/accounts/account-admin.ts";
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { createKey, revokeKey, setKeyLimits } from "../src/keys/key-admin.ts";
import { readKeys, readUsage } from "../src/keys/key-file.ts";
import { runScript, startServer, tempDir } from "./helpers.ts";

const STATE = "/api/v1/grid/system-state?start=2024-01-01&end=2024-01-02";
const MIX = "/api/v1/generation/mix?start=2024-01-01&end=2024-01-02";

function clock(start = Date.parse("2026-01-01T00:00:00Z")) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

async function setup(t: Parameters<typeof tempDir>[0], options: { limits?: Record<string, number> } = {}) {
  const dir = tempDir(t);
  const c = clock();
  const server = await startServer(t, dir, { now: c.now, limits: options.limits });
  const { key, record } = createKey(dir, { name: "analyst", account: "desk" });
  return { dir, c, server, key, record };
}

test("no key, or an empty one, is a 401 with the contract's body and a challenge", async (t) => {
  const { server } = await setup(t);
  for (const headers of [{}, { "X-API-KEY": "" }, { "X-API-KEY": "   " }] as Record<string, string>[]) {
    const res = await server.raw(STATE, { headers });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("www-authenticate"), "X-API-KEY");
    assert.equal(res.headers.get("ratelimit"), null, "an unauthenticated response gets no limit fields");
    assert.deepEqual(await res.json(), { detail: "Authentication credentials were not provided." });
  }
});

test("an unknown, malformed or revoked key is a 401 'Invalid API key.'", async (t) => {
  const { dir, server, key, record } = await setup(t);
  const unknown = "gds_" + "A".repeat(43);
  for (const value of [unknown, "hunter2", key + "x", key.slice(0, -1) + (key.endsWith("A") ? "B" : "A")]) {
    const res = await server.raw(STATE, { headers: { "X-API-KEY": value } });
    assert.equal(res.status, 401, value);
    assert.equal(res.headers.get("www-authenticate"), "X-API-KEY");
    assert.deepEqual(await res.json(), { detail: "Invalid API key." });
  }
  assert.equal((await server.raw(STATE, { headers: { "X-API-KEY": key } })).status, 200);
  revokeKey(dir, record.id);
  const revoked = await server.raw(STATE, { headers: { "X-API-KEY": key } });
  assert.equal(revoked.status, 401, "revocation takes effect on the running server at once");
  assert.deepEqual(await revoked.json(), { detail: "Invalid API key." });
});

test("the header name is case-insensitive", async (t) => {
  const { server, key } = await setup(t);
  for (const name of ["X-API-KEY", "x-api-key", "X-Api-Key"]) {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(server.url + STATE, { headers: { [name]: key } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(status, 200, name);
  }
});

test("an unknown path is a 404 before authentication; a wrong method is a 401 before a 405", async (t) => {
  const { server, key } = await setup(t);
  assert.equal((await server.raw("/api/v1/nothing")).status, 404);
  assert.equal((await server.raw(STATE, { method: "POST" })).status, 401);
  const allowed = await server.raw(STATE, { method: "POST", headers: { "X-API-KEY": key } });
  assert.equal(allowed.status, 405);
  assert.match(allowed.headers.get("ratelimit")!, /^"normalized_data";r=9;t=60$/);
});

test("the 11th request inside 60 s is refused in normalized_data with N in the body and Retry-After", async (t) => {
  const { c, server, key } = await setup(t);
  const headers = { "X-API-KEY": key };
  for (let i = 0; i < 10; i++) {
    const res = await server.raw(STATE, { headers });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("ratelimit-policy"), '"normalized_data";q=10;w=60');
    assert.equal(res.headers.get("ratelimit"), `"normalized_data";r=${9 - i};t=${60 - i}`);
    await res.arrayBuffer();
    c.advance(1_000);
  }
  c.advance(3_500); // 13.5 s after the first request, which leaves the window at 60 s
  const res = await server.raw(STATE, { headers });
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "47");
  assert.equal(res.headers.get("ratelimit"), '"normalized_data";r=0;t=47');
  assert.deepEqual(await res.json(), { detail: "Request was throttled. Expected available in 47 seconds." });
  c.advance(46_000);
  const last = await server.raw(STATE, { headers });
  assert.equal(last.headers.get("retry-after"), "1");
  assert.deepEqual(await last.json(), { detail: "Request was throttled. Expected available in 1 second." });
  c.advance(500);
  assert.equal((await server.raw(STATE, { headers })).status, 200, "the throttled requests did not count");
});

test("system state and generation mix share one bucket", async (t) => {
  const { server, key } = await setup(t);
  const headers = { "X-API-KEY": key };
  for (let i = 0; i < 5; i++) assert.equal((await server.raw(STATE, { headers })).status, 200);
  for (let i = 0; i < 5; i++) assert.equal((await server.raw(MIX, { headers })).status, 200);
  assert.equal((await server.raw(MIX, { headers })).status, 429);
  assert.equal((await server.raw(STATE, { headers })).status, 429);
});

test("a 401 does not count; a 400 and a 405 do", async (t) => {
  const { server, key } = await setup(t, { limits: { normalized_data: 3, features: 3 } });
  for (let i = 0; i < 5; i++)
    assert.equal((await server.raw(STATE, { headers: { "X-API-KEY": "nope" } })).status, 401);
  const headers = { "X-API-KEY": key };
  assert.equal(
    (await server.raw("/api/v1/grid/system-state?start=bad&end=2024-01-01", { headers })).status,
    400,
  );
  assert.equal((await server.raw(STATE, { headers, method: "DELETE" })).status, 405);
  const third = await server.raw(STATE, { headers });
  assert.equal(third.status, 200);
  assert.equal(third.headers.get("ratelimit"), '"normalized_data";r=0;t=60');
  assert.equal((await server.raw(STATE, { headers })).status, 429);
  // Throttling is checked before the method, as DRF does.
  assert.equal((await server.raw(STATE, { headers, method: "POST" })).status, 429);
});

test("the operator's default limits apply, and a key's own limit overrides them", async (t) => {
  const { dir, server, key } = await setup(t, { limits: { normalized_data: 2, features: 3 } });
  const heavy = createKey(dir, { name: "heavy", account: "fund", limits: { normalized_data: 5 } }).key;
  for (let i = 0; i < 2; i++)
    assert.equal((await server.raw(STATE, { headers: { "X-API-KEY": key } })).status, 200);
  assert.equal((await server.raw(STATE, { headers: { "X-API-KEY": key } })).status, 429);
  for (let i = 0; i < 5; i++) {
    const res = await server.raw(STATE, { headers: { "X-API-KEY": heavy } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("ratelimit-policy"), '"normalized_data";q=5;w=60');
  }
  assert.equal((await server.raw(STATE, { headers: { "X-API-KEY": heavy } })).status, 429);
});

test("a key already in use gets its new RateLimit-Policy at the next request after its limit changes", async (t) => {
  const { dir, server } = await setup(t, { limits: { normalized_data: 2, features: 3 } });
  const { record, key } = createKey(dir, { name: "moving", account: "fund" });
  const policy = async () =>
    (await server.raw(STATE, { headers: { "X-API-KEY": key } })).headers.get("ratelimit-policy");
  assert.equal(await policy(), '"normalized_data";q=2;w=60');
  setKeyLimits(dir, record.id, { normalized_data: 7 });
  assert.equal(await policy(), '"normalized_data";q=7;w=60');
  setKeyLimits(dir, record.id, { normalized_data: null });
  assert.equal(await policy(), '"normalized_data";q=2;w=60', "back to the default");
});

test("the access log names the key by its prefix, never in full", async (t) => {
  const { server, key, record } = await setup(t);
  await (await server.raw(STATE, { headers: { "X-API-KEY": key } })).arrayBuffer();
  await (await server.raw(STATE, { headers: { "X-API-KEY": key + "zz" } })).arrayBuffer();
  await new Promise((resolve) => setImmediate(resolve));
  const text = JSON.stringify(server.logs);
  assert.ok(!text.includes(key));
  assert.equal(server.logs.at(-2)!.key, record.prefix);
  assert.equal(server.logs.at(-1)!.key, null);
});

test("last use is recorded, and written at most once a minute per key", async (t) => {
  const { dir, c, server, key, record } = await setup(t);
  const hit = async () => {
    await (await server.raw(STATE, { headers: { "X-API-KEY": key } })).arrayBuffer();
    await new Promise((resolve) => setImmediate(resolve));
  };
  assert.equal(readUsage(dir)[record.id], undefined);
  await hit();
  assert.equal(readUsage(dir)[record.id], "2026-01-01T00:00:00.000Z");
  c.advance(30_000);
  await hit();
  assert.equal(readUsage(dir)[record.id], "2026-01-01T00:00:00.000Z", "not rewritten within the minute");
  c.advance(31_000);
  await hit();
  assert.equal(readUsage(dir)[record.id], "2026-01-01T00:01:01.000Z");
});

async function runCli(
  dir: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runScript("scripts/keys.ts", args, {
    ...process.env,
    DATA_DIR: dir,
  });
  return { code: code ?? -1, stdout, stderr };
}

test("concurrent `keys create` commands while the server runs lose no key, and each key works", async (t) => {
  const { dir, server } = await setup(t);
  await createAccount(dir, { name: "admin" }); // the keys' account (create's default)
  const before = readKeys(dir).length;
  const runs = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      runCli(dir, ["create", "--name", `parallel-${i}`, "--limit", "normalized_data=100"]),
    ),
  );
  for (const run of runs) assert.equal(run.code, 0, run.stderr);
  const keys = runs.map((r) => r.stdout.trim().split("\n").at(-1)!);
  assert.equal(readKeys(dir).length, before + 6);
  for (const key of keys) {
    assert.match(key, /^gds_/);
    assert.equal((await server.raw(STATE, { headers: { "X-API-KEY": key } })).status, 200);
  }
  const revoked = await runCli(dir, ["revoke", keys[0]!.slice(0, 12)]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal((await server.raw(STATE, { headers: { "X-API-KEY": keys[0]! } })).status, 401);
});
