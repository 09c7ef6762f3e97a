/** The dashboard over HTTP: cookies, CSRF, sign-in throttling, sessions and passwords. */
import { test } from "node:test";
import { connect } from "node:net";
import assert from "node:assert/strict";
import { setAccountDisabled, resetPassword } from "../src/accounts/account-admin.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { readKeys } from "../src/keys/key-file.ts";
import { account, Client, clock, dashboardServer, PASSWORD, signedIn } from "./dashboard-helpers.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DocumentStore } from "../src/files/document-store.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, startServer } from "./helpers.ts";
import { REDIS_SKIP, type TestVm, vmsOnRedis } from "./redis-helpers.ts";

const DATA = "/api/v1/grid/system-state?start=2025-06-05&end=2025-06-06";
const HOUR = 3_600_000;

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
      {
        current_password: PASSWORD,
        new_password: "lantern orbit cactus",
        confirm_password: "lantern orbit cactuz",
      },
      /differ/,
    ],
    [
      { current_password: PASSWORD, new_password: "y".repeat(12), confirm_password: "y".repeat(12) },
      /too easy to guess: it repeats a character/,
    ],
  ];
  for (const [fields, message] of cases) {
    const res = await client.post("/dashboard/password", { csrf, ...fields });
    assert.equal(res.status, 400);
    assert.match(await res.text(), message);
  }
});

/**
 * Sends `requests` pipelined in one write on one connection (the last says `Connection: close`);
 * resolves with each response's status once the server has answered them all and closed.
 */
function pipelined(url: string, requests: string[]): Promise<number[]> {
  const { hostname, port } = new URL(url);
  const last = requests.at(-1)!.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write([...requests.slice(0, -1), last].join("")),
    );
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (text += chunk));
    // A body need not end in a line break: the next status line can follow it on the same line.
    socket.on("close", () => resolve([...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))));
    socket.on("error", reject);
  });
}

test("50 parallel wrong sign-ins, then the right password: at most 5 are checked, and the right one waits out the window; the owner elsewhere signs in", async (t) => {
  const c = clock();
  const { dir, server } = await dashboardServer(t, { now: c.now, trustedProxies: 1 });
  await account(dir, "analyst");
  const attacker = new Client(server.url);
  const from = { "X-Forwarded-For": "203.0.113.7" };
  const csrf = await attacker.token("/dashboard/sign-in");
  const burst = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      attacker.post("/dashboard/sign-in", { csrf, username: "analyst", password: `guess ${i}` }, from),
    ),
  );
  const checked = burst.filter((res) => res.status === 200).length;
  assert.ok(checked <= 5, `${checked} passwords were checked`);
  assert.equal(burst.filter((res) => res.status === 429).length, 50 - checked);
  // Each wrong answer showed the form again with a new token: take the latest, as a browser would.
  const fresh = await attacker.token("/dashboard/sign-in");
  const right = await attacker.post(
    "/dashboard/sign-in",
    { csrf: fresh, username: "analyst", password: PASSWORD },
    from,
  );
  assert.equal(right.status, 429, "the right password from the guessing address waits too");

  const owner = new Client(server.url);
  const signedInElsewhere = await owner.signIn("analyst", PASSWORD, { "X-Forwarded-For": "198.51.100.2" });
  assert.equal(signedInElsewhere.status, 303, "the owner, from another address, is not locked out");

  c.advance(15 * 60_000 + 1);
  const later = await attacker.post(
    "/dashboard/sign-in",
    { csrf: await attacker.token("/dashboard/sign-in"), username: "analyst", password: PASSWORD },
    from,
  );
  assert.equal(later.status, 303, "after the window");
});

test("39 wrong passwords and the right one pipelined on one connection: 5 are checked, the rest and the right one refused", async (t) => {
  const { dir, server } = await dashboardServer(t);
  await account(dir, "analyst");
  const client = new Client(server.url);
  const csrf = await client.token("/dashboard/sign-in");
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const { host } = new URL(server.url);
  const post = (password: string) => {
    const body = new URLSearchParams({ csrf, username: "analyst", password }).toString();
    return (
      `POST /dashboard/sign-in HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${server.url}\r\nCookie: ${cookie}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`
    );
  };
  const statuses = await pipelined(server.url, [
    ...Array.from({ length: 39 }, (_, i) => post(`wrong ${i}`)),
    post(PASSWORD),
  ]);
  assert.equal(statuses.length, 40, statuses.join(" "));
  assert.deepEqual(statuses.filter((s) => s === 200).length, 5, statuses.join(" "));
  assert.equal(statuses.at(-1), 429, "the right password, after the guesses, is refused");
});

test("a sign-in token is the server's: a forged pair, an old one, or one of another service is refused", async (t) => {
  const c = clock();
  const { dir, server } = await dashboardServer(t, { now: c.now });
  await account(dir, "analyst");
  const forged = "lq2x3y.AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
  const stranger = new Client(server.url);
  stranger.cookies.set("gds_signin", forged);
  const res = await stranger.post("/dashboard/sign-in", {
    csrf: forged,
    username: "analyst",
    password: PASSWORD,
  });
  assert.equal(res.status, 403, "a pair the server never issued");
  const client = new Client(server.url);
  const csrf = await client.token("/dashboard/sign-in");
  c.advance(60 * 60_000 + 1);
  const stale = await client.post("/dashboard/sign-in", { csrf, username: "analyst", password: PASSWORD });
  assert.equal(stale.status, 403, "an hour after it was shown");
  const other = await dashboardServer(t, { now: c.now });
  const foreign = new Client(other.server.url);
  const token = await foreign.token("/dashboard/sign-in");
  const moved = new Client(server.url);
  moved.cookies.set("gds_signin", token);
  assert.equal(
    (await moved.post("/dashboard/sign-in", { csrf: token, username: "analyst", password: PASSWORD })).status,
    403,
    "a token another service (another secret) issued",
  );
});

test("a common or patterned password is refused, with why; a few unrelated words are accepted", async (t) => {
  const { server } = await signedIn(t);
  void server;
  const { createAccount } = await import("../src/accounts/account-admin.ts");
  const dir = (await dashboardServer(t)).dir;
  for (const [password, why] of [
    ["aaaaaaaaaaaa", /repeats a character/],
    ["password1234", /common password with small changes/],
    ["abcdefghijkl", /is a sequence/],
    ["qwertyuiopasdf", /row of keys|common password/],
    ["analystanalyst", /username|repeats a pattern/],
  ] as const) {
    await assert.rejects(createAccount(dir, { name: "analyst", password }), why, password);
  }
  await createAccount(dir, { name: "analyst", password: "lantern orbit cactus" });
});

test(
  "an account made on another VM a moment ago signs in at once; every name costs the same read of the accounts",
  { skip: REDIS_SKIP },
  async (t) => {
    const { vms } = await vmsOnRedis(t, 2);
    const [a, b] = vms as [TestVm, TestVm];
    // B's reads of the accounts where they are kept, counted: one per sign-in, whatever the name.
    let reads = 0;
    const counted: DocumentStore = {
      dir: b.dir,
      update: (file, change, once) => b.documents.update(file, change, once),
      read: (file) => {
        if (file.name === "accounts.json") reads += 1;
        return b.documents.read(file);
      },
    };
    ingestTexts(b.dir, { "sample.csv": generateSampleExport({ firstDay: "2025-06-01", days: 2 }) });
    const server = await startServer(t, b.dir, { documents: counted });
    // Made on A: in Redis, and in A's copy; B's copy has not followed (it follows no notices here).
    await account(a.dir, "newcomer", { documents: a.documents });
    assert.equal(existsSync(join(b.dir, "accounts.json")), false, "B's copy is behind");
    const client = new Client(server.url);
    assert.equal((await client.signIn("newcomer", PASSWORD)).status, 303, "signed in on B at once");
    reads = 0;
    for (const [name, password] of [
      ["newcomer", "not the password"],
      ["nobody-here", "not the password"],
    ] as const) {
      const res = await new Client(server.url).signIn(name, password);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /Incorrect username or password\./);
    }
    assert.equal(reads, 2, "a known name and an unknown one each read the accounts once");
  },
);
