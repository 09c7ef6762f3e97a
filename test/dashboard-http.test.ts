/** The dashboard over HTTP: isolation between accounts, headers, secrets, the admin forms, the overview. */
import { test } from "node:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import { createAccount, setAccountDisabled } from "../src/accounts/account-admin.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { readKeys } from "../src/keys/key-file.ts";
import { account, Client, dashboardServer, PASSWORD, signedIn } from "./dashboard-helpers.ts";
import { exportCsv, ingestTexts, sast, startServer, tempDir, waitFor } from "./helpers.ts";

const DATA = "/api/v1/grid/system-state?start=2025-06-05&end=2025-06-06";

test("an account sees only its own keys; another account's key id is a 404 that changes nothing", async (t) => {
  const { dir, server, client } = await signedIn(t);
  const { record } = createKey(dir, { name: "theirs", account: "someone-else" });
  const keys = await (await client.get("/dashboard/keys")).text();
  assert.ok(!keys.includes(record.prefix) && !keys.includes("theirs"));
  assert.equal((await client.get(`/dashboard/keys/revoke?id=${record.id}`)).status, 404);
  const csrf = await client.token("/dashboard/keys");
  assert.equal((await client.post("/dashboard/keys/revoke", { csrf, id: record.id })).status, 404);
  assert.equal(readKeys(dir).find((k) => k.id === record.id)!.revoked, null);
  assert.equal((await client.get("/dashboard/admin")).status, 404, "admin pages do not exist for users");
  void server;
});

test("a new key is shown once, on a no-store page, and never again", async (t) => {
  const { client } = await signedIn(t);
  const csrf = await client.token("/dashboard/keys");
  const created = await client.post("/dashboard/keys", { csrf, name: "laptop" });
  assert.equal(created.headers.get("location"), "/dashboard/keys/new", "the key is never in a URL");
  const shown = await client.get("/dashboard/keys/new");
  assert.equal(shown.headers.get("cache-control"), "no-store");
  const key = /id="new-key">(gds_[^<]+)</.exec(await shown.text())![1]!;
  assert.match(key, /^gds_[0-9A-Za-z]{49}$/);
  const again = await (await client.get("/dashboard/keys/new")).text();
  assert.ok(!again.includes(key));
  assert.match(again, /shown already/);
});

test("every dashboard response carries the CSP, nosniff, same-origin referrers and no-store", async (t) => {
  const { server, client } = await signedIn(t, { admin: true });
  for (const path of [
    "/dashboard",
    "/dashboard/keys",
    "/dashboard/admin",
    "/dashboard/password",
    "/dashboard/keys/new",
  ]) {
    const res = await client.get(path);
    assert.equal(res.status, 200, path);
    const csp = res.headers.get("content-security-policy")!;
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("referrer-policy"), "same-origin");
    assert.equal(res.headers.get("cache-control"), "no-store");
    const page = await res.text();
    assert.doesNotMatch(page, /<script>|<script [^>]*>[^<]|\son[a-z]+=|style="/, "no inline script or style");
  }
  const css = await server.raw("/dashboard/assets/dashboard.css");
  assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
  assert.equal(css.headers.get("x-content-type-options"), "nosniff");
});

test("the home page shows the account's requests per scope, counted by the server", async (t) => {
  const { dir, server, client } = await signedIn(t);
  const { key } = createKey(dir, { name: "bot", account: "analyst", limits: { features: 1 } });
  for (let i = 0; i < 3; i++) await (await server.raw(DATA, { headers: { "X-API-KEY": key } })).arrayBuffer();
  const stress = "/api/v1/features/grid-stress?start=2025-06-05&end=2025-06-06";
  for (let i = 0; i < 2; i++)
    await (await server.raw(stress, { headers: { "X-API-KEY": key } })).arrayBuffer();
  await server.counter.flush();
  await (await server.get(DATA)).arrayBuffer(); // another account's key: not counted here
  const page = await (await client.get("/dashboard")).text();
  // Each scope's row as its cells' text: scope, today, last 7 days, throttled.
  const row = (scope: string) =>
    [...page.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
      .map((m) =>
        [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, "").trim()),
      )
      .find((cells) => cells[0] === scope);
  assert.deepEqual(row("normalized_data"), ["normalized_data", "3", "3", "0"]);
  // The sample ends in 2025, long before the test's clock: a sample is labelled, never called stale.
  assert.match(page, /Sample data: generated, not Eskom's\./);
  assert.doesNotMatch(page, /The data is stale/);
  assert.deepEqual(
    row("features"),
    ["features", "1", "1", "1"],
    "one allowed, one throttled at the key's limit of 1",
  );
  assert.match(
    page,
    /curl -H &quot;X-API-KEY: YOUR_KEY&quot; &quot;http:\/\/127\.0\.0\.1:\d+\/api\/v1\/grid\/system-state\?start=2025-06-10&amp;end=2025-06-11&quot;/,
  );
});

test("an admin's forms: create an account (name checked), disable and enable it, set limits", async (t) => {
  const { dir, server, client } = await signedIn(t, { admin: true });
  const csrf = await client.token("/dashboard/admin");
  const bad = await client.post("/dashboard/admin/accounts", { csrf, name: "no spaces please" });
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /not a valid account name/);
  const made = await client.post("/dashboard/admin/accounts", { csrf, name: "Desk" });
  assert.equal(made.headers.get("location"), "/dashboard/admin/new");
  const password = /id="one-time-password">([^<]+)</.exec(
    await (await client.get("/dashboard/admin/new")).text(),
  )![1]!;
  const desk = new Client(server.url);
  assert.equal((await desk.signIn("desk", password)).headers.get("location"), "/dashboard/password");
  const dup = await client.post("/dashboard/admin/accounts", { csrf, name: "desk" });
  assert.match(await dup.text(), /exists already/);

  assert.equal(
    (await client.post("/dashboard/admin/accounts/status", { csrf, account: "desk", action: "disable" }))
      .status,
    303,
  );
  assert.equal((await desk.get("/dashboard/password")).status, 303, "the disabled account's session ended");
  const self = await client.post("/dashboard/admin/accounts/status", {
    csrf,
    account: "analyst",
    action: "disable",
  });
  assert.equal(self.status, 400, "an admin cannot lock themselves out");

  const { record, key } = createKey(dir, { name: "bot", account: "desk" });
  await setAccountDisabled(dir, "desk", false);
  const limits = await client.post("/dashboard/admin/keys/limits", {
    csrf,
    id: record.id,
    normalized_data: "2",
    features: "",
    metadata: "",
  });
  assert.equal(limits.status, 303);
  const first = await server.raw(DATA, { headers: { "X-API-KEY": key } });
  assert.equal(first.headers.get("ratelimit-policy"), '"normalized_data";q=2;w=60');
  const wrong = await client.post("/dashboard/admin/keys/limits", {
    csrf,
    id: record.id,
    normalized_data: "lots",
  });
  assert.equal(wrong.status, 400);
  assert.equal(
    (await client.post("/dashboard/admin/keys/limits", { csrf, id: "key_000000000000" })).status,
    404,
  );
});

test("forms are bounded: another content type is 415, a huge body 413", async (t) => {
  const { server, client } = await signedIn(t);
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const json = await fetch(server.url + "/dashboard/keys", {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: cookie },
    body: "{}",
  });
  assert.equal(json.status, 415);
  const huge = await client.post("/dashboard/keys", { name: "x".repeat(20_000) });
  assert.equal(huge.status, 413);
});

test("no password, session id or full key appears in a log line, an error or a URL", async (t) => {
  const { dir, server } = await dashboardServer(t);
  const oneTime = await account(dir, "analyst", { oneTime: true });
  const client = new Client(server.url);
  const locations: string[] = [];
  const track = (res: Response) => locations.push(res.headers.get("location") ?? "");
  track(await client.signIn("analyst", oneTime));
  track(await new Client(server.url).signIn("analyst", "a wrong password here"));
  const next = "my own passphrase";
  track(
    await client.post("/dashboard/password", {
      csrf: await client.token("/dashboard/password"),
      current_password: oneTime,
      new_password: next,
      confirm_password: next,
    }),
  );
  track(await client.post("/dashboard/keys", { csrf: await client.token("/dashboard/keys"), name: "k" }));
  const key = /id="new-key">(gds_[^<]+)</.exec(await (await client.get("/dashboard/keys/new")).text())![1]!;
  await (await server.raw(DATA, { headers: { "X-API-KEY": key } })).arrayBuffer();
  const session = client.cookies.get("gds_session")!;
  await new Promise((resolve) => setImmediate(resolve));
  const text = JSON.stringify(server.logs) + server.errors.map(String).join("\n") + locations.join("\n");
  for (const secret of [oneTime, next, "a wrong password here", session, key]) {
    assert.ok(!text.includes(secret), `a secret leaked: ${secret.slice(0, 6)}…`);
  }
  assert.ok(
    server.logs.some((l) => l.path === "/dashboard/sign-in"),
    "the dashboard is in the access log",
  );
});

test("an account created by the CLI after its keys exist gets them on its keys page", async (t) => {
  const { dir, server } = await dashboardServer(t);
  const { record } = createKey(dir, { name: "older key", account: "late" });
  await createAccount(dir, { name: "late", password: PASSWORD });
  const client = new Client(server.url);
  await client.signIn("late", PASSWORD);
  assert.match(await (await client.get("/dashboard/keys")).text(), new RegExp(record.prefix));
});

test("behind a trusted proxy, the address limit counts each client, and a forged X-Forwarded-For entry is ignored", async (t) => {
  const { dir, server } = await dashboardServer(t, { trustedProxies: 1 });
  await account(dir, "analyst");
  const attacker = new Client(server.url);
  // The client may put anything on the left; the proxy appends the address it saw.
  const from = (ip: string) => ({ "X-Forwarded-For": `203.0.113.7, ${ip}` });
  for (let i = 0; i < 20; i++) await attacker.signIn(`user${i}`, "nope", from("198.51.100.1"));
  assert.equal((await attacker.signIn("user99", "nope", from("198.51.100.1"))).status, 429);
  const colleague = new Client(server.url);
  const res = await colleague.signIn("analyst", PASSWORD, from("198.51.100.2"));
  assert.equal(res.status, 303, "another client behind the same proxy still signs in");
});

test("the overview of a store of real data shows no sample notice, and calls old data stale", async (t) => {
  const dir = tempDir(t);
  const hours = Array.from({ length: 30 }, (_, h) => [
    sast(Date.parse("2024-03-01T00:00:00Z") + h * 3_600_000),
    21_000,
    900,
  ]);
  ingestTexts(dir, { "ESK0001.csv": exportCsv(["Thermal Generation", "Wind"], hours) });
  const server = await startServer(t, dir);
  await account(dir, "analyst");
  const client = new Client(server.url);
  assert.equal((await client.signIn("analyst", PASSWORD)).status, 303);
  const page = await (await client.get("/dashboard")).text();
  assert.match(page, /The data is stale/);
  assert.doesNotMatch(page, /Sample data/);
  assert.match(page, /No stored day carries load-reduction data\./);
});

test("the overview shows the last 7 stored days of load shedding, as the API sums them", async (t) => {
  const { server, client } = await signedIn(t);
  const page = await (await client.get("/dashboard")).text();
  const bars = /<ol class="bars shedding"[^>]*>([\s\S]*?)<\/ol>/.exec(page)?.[1] ?? "";
  const titles = [...bars.matchAll(/title="([^"]*)"/g)].map((m) => m[1]!);
  // The sample's newest day is 2025-06-10: the 7 days up to it.
  const api = (await (
    await server.get("/api/v1/grid/load-reduction?start=2025-06-04&end=2025-06-11&interval=1d")
  ).json()) as {
    data: {
      manual_load_reduction_mwh: number;
      manual_load_reduction_max_mw: number;
      hours_with_manual_load_reduction: number;
    }[];
  };
  assert.equal(api.data.length, 7);
  assert.deepEqual(
    titles,
    api.data.map(
      (d) =>
        `${Math.round(d.manual_load_reduction_mwh).toLocaleString("en-US")} MWh, peak ${Math.round(d.manual_load_reduction_max_mw).toLocaleString("en-US")} MW, ${d.hours_with_manual_load_reduction} h`,
    ),
  );
  assert.doesNotMatch(page, /<script(?! src="\/dashboard\/assets\/dashboard\.js")/, "no new script");
});

test("a hand-damaged keys.json: the keys page shows the last good set, as the API keeps honouring it", async (t) => {
  const { dir, server, client } = await signedIn(t);
  const { key, record } = createKey(dir, { name: "mine", account: "analyst" });
  assert.match(await (await client.get("/dashboard/keys")).text(), new RegExp(record.prefix));
  // Written in place, as an editor may: the directory does not change, so the server sees the
  // damage at its once-a-second restat (SAFETY_MS), not at once. Under load more than the racy
  // window can pass between the CLI's write and this one, so the test waits for the restat.
  writeFileSync(join(dir, "keys.json"), '{"format": 1, "keys": [{"id": ');
  const logged = () => server.errors.some((e) => String(e).includes("keys.json"));
  await waitFor(
    async () => {
      const page = await client.get("/dashboard/keys");
      assert.equal(page.status, 200);
      assert.match(await page.text(), new RegExp(record.prefix), "the last good set");
      assert.equal((await server.raw(DATA, { headers: { "X-API-KEY": key } })).status, 200);
      return logged();
    },
    "the damage to be logged",
    { everyMs: 100 },
  );
});
