/** The dashboard over HTTP: cookies, CSRF, sign-in throttling, sessions, isolation, headers, secrets. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createAccount, setAccountDisabled, resetPassword } from "../src/accounts/account-admin.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { readKeys } from "../src/keys/key-file.ts";
import { account, Client, dashboardServer, PASSWORD } from "./dashboard-helpers.ts";
import { exportCsv, ingestTexts, sast, startServer, tempDir } from "./helpers.ts";

const DATA = "/api/v1/grid/system-state?start=2025-06-05&end=2025-06-06";
const HOUR = 3_600_000;

function clock(start = Date.parse("2026-01-01T00:00:00Z")) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

async function signedIn(t: Parameters<typeof dashboardServer>[0], options: { admin?: boolean } = {}) {
  const c = clock();
  const { dir, server } = await dashboardServer(t, { now: c.now });
  await account(dir, "analyst", { ...options, now: c.now });
  const client = new Client(server.url);
  const res = await client.signIn("analyst", PASSWORD);
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/dashboard");
  return { c, dir, server, client };
}

test("the session cookie is HttpOnly, SameSite=Strict, Path=/dashboard, and Secure only when configured", async (t) => {
  for (const secure of [false, true]) {
    const { dir, server } = await dashboardServer(t, { secureCookies: secure });
    await account(dir, "analyst");
    const client = new Client(server.url);
    const res = await client.signIn("analyst", PASSWORD);
    const line = res.headers.getSetCookie().find((c) => c.startsWith("gds_session="))!;
    const id = line.split(";")[0]!.slice("gds_session=".length);
    assert.match(id, /^[A-Za-z0-9_-]{43}$/, "256 random bits");
    const attributes = line.split(";").map((a) => a.trim());
    for (const a of ["HttpOnly", "SameSite=Strict", "Path=/dashboard"]) assert.ok(attributes.includes(a), a);
    assert.equal(attributes.includes("Secure"), secure);
  }
});

test("a state-changing POST without the session's token gets 403 and changes nothing", async (t) => {
  const { c, dir, server, client } = await signedIn(t);
  const before = readKeys(dir).length;
  const token = await client.token("/dashboard/keys");
  const other = new Client(server.url);
  await account(dir, "other", { now: c.now });
  await other.signIn("other", PASSWORD);
  const foreign = await other.token("/dashboard/keys");
  for (const csrf of [undefined, "", "x".repeat(43), foreign]) {
    const fields: Record<string, string> = { name: "forged" };
    if (csrf !== undefined) fields.csrf = csrf;
    const res = await client.post("/dashboard/keys", fields);
    assert.equal(res.status, 403, `token ${csrf}`);
    assert.match(await res.text(), /could not be verified/);
  }
  const crossSite = await client.post(
    "/dashboard/keys",
    { csrf: token, name: "forged" },
    { "Sec-Fetch-Site": "cross-site" },
  );
  assert.equal(crossSite.status, 403, "a browser's cross-site post is refused even with a token");
  assert.equal(readKeys(dir).length, before);
  const ok = await client.post("/dashboard/keys", { csrf: token, name: "real" });
  assert.equal(ok.status, 303);
  assert.equal(readKeys(dir).length, before + 1);
});

test("state changes are POST only; the sign-in form needs its own double-submit token", async (t) => {
  const { server, dir } = await signedIn(t);
  for (const path of ["/dashboard/sign-out", "/dashboard/admin/accounts", "/dashboard/admin/keys/limits"]) {
    assert.equal((await server.raw(path)).status, 405, path);
  }
  const stranger = new Client(server.url);
  const res = await stranger.post("/dashboard/sign-in", {
    username: "analyst",
    password: PASSWORD,
    csrf: "guess",
  });
  assert.equal(res.status, 403, "a forged sign-in (login CSRF) is refused");
  assert.equal(
    res.headers.getSetCookie().some((c) => c.startsWith("gds_session=")),
    false,
  );
  await account(dir, "nobody-else");
});

test("sign-in is throttled after 5 failures for a username, whatever the password, for the rest of the window", async (t) => {
  const c = clock();
  const { dir, server } = await dashboardServer(t, { now: c.now });
  await account(dir, "analyst");
  const client = new Client(server.url);
  for (let i = 0; i < 5; i++) {
    const res = await client.signIn("analyst", "wrong password " + i);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Incorrect username or password\./);
    c.advance(60_000);
  }
  const blocked = await client.signIn("Analyst", PASSWORD);
  assert.equal(blocked.status, 429, "the right password does not help, nor does the case of the name");
  assert.equal(
    blocked.headers.get("retry-after"),
    String(15 * 60 - 5 * 60),
    "until the oldest failure leaves",
  );
  c.advance(10 * 60_000 + 1);
  assert.equal((await client.signIn("analyst", PASSWORD)).status, 303, "after the window it works");
});

test("an unknown username reads exactly like a wrong password, and counts toward the same limits", async (t) => {
  const { dir, server } = await dashboardServer(t);
  await account(dir, "analyst");
  const client = new Client(server.url);
  const page = async (res: Response) => (await res.text()).replace(/value="[^"]*"/g, "");
  const wrong = await page(await client.signIn("analyst", "not the password"));
  const unknown = await page(await client.signIn("analyst", "not the password"));
  assert.equal(wrong, unknown);
  const ghost = await client.signIn("ghost", "not the password");
  assert.equal(ghost.status, 200);
  assert.equal((await page(ghost)).replace("ghost", "analyst"), wrong);
  for (let i = 0; i < 4; i++) await client.signIn("ghost", "x" + i);
  assert.equal((await client.signIn("ghost", "y")).status, 429, "unknown names are throttled too");
});

test("20 failures from one address block every username from it", async (t) => {
  const { dir, server } = await dashboardServer(t);
  await account(dir, "analyst");
  const client = new Client(server.url);
  for (let i = 0; i < 20; i++) assert.equal((await client.signIn(`user${i}`, "nope")).status, 200);
  const res = await client.signIn("analyst", PASSWORD);
  assert.equal(res.status, 429);
  assert.ok(Number(res.headers.get("retry-after")) > 0);
});

test("sessions survive a restart, end after 12 hours idle or 7 days in all, and on sign-out", async (t) => {
  const { c, dir, server, client } = await signedIn(t);
  const restarted = await startServer(t, dir, { now: c.now });
  const again = new Client(restarted.url);
  for (const [k, v] of client.cookies) again.cookies.set(k, v);
  assert.equal((await again.get("/dashboard")).status, 200, "a new process honours the stored session");

  c.advance(11 * HOUR);
  assert.equal((await client.get("/dashboard")).status, 200);
  c.advance(11 * HOUR);
  assert.equal((await client.get("/dashboard")).status, 200, "use keeps it alive");
  c.advance(12 * HOUR + 1);
  const idle = await client.get("/dashboard");
  assert.equal(idle.status, 303);
  assert.equal(idle.headers.get("location"), "/dashboard/sign-in?notice=session-ended");

  await client.signIn("analyst", PASSWORD);
  for (let i = 0; i < 15; i++) {
    c.advance(11 * HOUR);
    assert.equal((await client.get("/dashboard")).status, 200, `after ${11 * (i + 1)} hours`);
  }
  c.advance(11 * HOUR);
  assert.equal((await client.get("/dashboard")).status, 303, "7 days is the most, however active");

  await client.signIn("analyst", PASSWORD);
  const copy = new Client(server.url);
  for (const [k, v] of client.cookies) copy.cookies.set(k, v);
  const out = await client.post("/dashboard/sign-out", { csrf: await client.token("/dashboard") });
  assert.equal(out.status, 303);
  assert.equal((await copy.get("/dashboard")).status, 303, "a copied cookie is dead after sign-out");
});

test("a password change ends every other session; a disabled account loses its sessions and keys at once", async (t) => {
  const { c, dir, server, client } = await signedIn(t);
  const second = new Client(server.url);
  await second.signIn("analyst", PASSWORD);
  const csrf = await client.token("/dashboard/password");
  const next = "another long passphrase";
  const changed = await client.post("/dashboard/password", {
    csrf,
    current_password: PASSWORD,
    new_password: next,
    confirm_password: next,
  });
  assert.equal(changed.status, 303);
  assert.equal((await client.get("/dashboard")).status, 200, "the browser that changed it stays signed in");
  assert.equal((await second.get("/dashboard")).status, 303, "every other browser is signed out");

  const { key } = createKey(dir, { name: "bot", account: "analyst" });
  assert.equal((await server.raw(DATA, { headers: { "X-API-KEY": key } })).status, 200);
  await setAccountDisabled(dir, "analyst", true, { now: new Date(c.now()) });
  assert.equal((await client.get("/dashboard")).status, 303);
  assert.equal((await server.raw(DATA, { headers: { "X-API-KEY": key } })).status, 401);
  const refused = await client.signIn("analyst", next);
  assert.match(await refused.text(), /disabled/);
  await setAccountDisabled(dir, "analyst", false);
  assert.equal(
    (await server.raw(DATA, { headers: { "X-API-KEY": key } })).status,
    200,
    "enabling restores keys",
  );
  await resetPassword(dir, "analyst", { password: PASSWORD, now: new Date(c.now()) });
  assert.equal((await client.signIn("analyst", PASSWORD)).status, 303);
});

test("a wrong current password, a short one or a mismatch is refused with a clear message", async (t) => {
  const { client } = await signedIn(t);
  const csrf = await client.token("/dashboard/password");
  const cases: [Record<string, string>, RegExp][] = [
    [
      { current_password: "nope", new_password: "x".repeat(12), confirm_password: "x".repeat(12) },
      /current password is not right/,
    ],
    [
      { current_password: PASSWORD, new_password: "short", confirm_password: "short" },
      /at least 12 characters/,
    ],
    [
      { current_password: PASSWORD, new_password: "y".repeat(12), confirm_password: "z".repeat(12) },
      /differ/,
    ],
  ];
  for (const [fields, message] of cases) {
    const res = await client.post("/dashboard/password", { csrf, ...fields });
    assert.equal(res.status, 400);
    assert.match(await res.text(), message);
  }
});

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
