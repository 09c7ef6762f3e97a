/**
 * The dashboard in a real browser (Debian's chromium, driven by playwright-core): a person's whole
 * path from a one-time password to a revoked key, another account's view, and a screenshot of
 * every page at desktop and phone size under test-output/.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { readKeys } from "../src/keys/key-file.ts";
import { readSubscriptions } from "../src/webhooks/subscriptions.ts";
import {
  account,
  BROWSER_SKIP,
  dashboardServer,
  sharedBrowser,
  PASSWORD,
  screenshotDir,
} from "./dashboard-helpers.ts";

const DATA = "/api/v1/grid/system-state?start=2025-06-05&end=2025-06-06";
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

const browser = sharedBrowser();

// The chart's axis labels that stick out of the chart or overlap another label, as drawn now.
function chartLabelClashes(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const svg = document.querySelector("svg.chart");
    if (svg === null) return [];
    const box = svg.getBoundingClientRect();
    const labels = [...svg.querySelectorAll("text")].map((t) => ({
      text: t.textContent,
      r: t.getBoundingClientRect(),
    }));
    const clashes = labels
      .filter(({ r }) => r.left < box.left || r.right > box.right || r.top < box.top || r.bottom > box.bottom)
      .map(({ text }) => `"${text}" sticks out of the chart`);
    labels.forEach((a, i) =>
      labels.slice(i + 1).forEach((b) => {
        const apart =
          a.r.right <= b.r.left || b.r.right <= a.r.left || a.r.bottom <= b.r.top || b.r.bottom <= a.r.top;
        if (!apart) clashes.push(`"${a.text}" overlaps "${b.text}"`);
      }),
    );
    return clashes;
  });
}

/** Screenshots of the current page at desktop and phone width, full length. */
async function shoot(page: Page, name: string): Promise<void> {
  const dir = screenshotDir();
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(dir, `${name}-desktop.png`), fullPage: true });
  assert.deepEqual(await chartLabelClashes(page), [], `${name}'s chart labels on a desktop`);
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(dir, `${name}-phone.png`), fullPage: true });
  assert.deepEqual(await chartLabelClashes(page), [], `${name}'s chart labels on a phone`);
  // Nothing may stick out sideways on a phone.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${name} is ${overflow}px wider than a phone screen`);
  await page.setViewportSize(DESKTOP);
}

async function signIn(page: Page, base: string, username: string, password: string): Promise<void> {
  await page.goto(base + "/dashboard");
  assert.equal(new URL(page.url()).pathname, "/dashboard/sign-in", "signed-out visitors are sent to sign in");
  await page.fill("#username", username);
  await page.fill("#password", password);
  await page.click("main button[type=submit]");
}

test(
  "a person signs in with a one-time password, changes it, creates a key, uses it, sees it used, and revokes it",
  { skip: BROWSER_SKIP },
  async (t) => {
    const { dir, server } = await dashboardServer(t);
    const oneTime = await account(dir, "analyst", { oneTime: true });
    const context = await browser().newContext({ viewport: DESKTOP });
    t.after(() => context.close());
    const page = await context.newPage();
    const scriptErrors: string[] = [];
    page.on("pageerror", (error) => scriptErrors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") scriptErrors.push(`${message.text()} (${message.location().url})`);
    });

    await page.goto(server.url + "/dashboard/sign-in");
    await shoot(page, "sign-in");
    await signIn(page, server.url, "analyst", oneTime);

    // Made to change the one-time password before anything else.
    assert.equal(new URL(page.url()).pathname, "/dashboard/password");
    await shoot(page, "change-password");
    await page.goto(server.url + "/dashboard/keys");
    assert.equal(new URL(page.url()).pathname, "/dashboard/password", "no other page until it is changed");
    await page.fill("#current_password", oneTime);
    await page.fill("#new_password", PASSWORD);
    await page.fill("#confirm_password", PASSWORD);
    await page.click("main button[type=submit]");
    assert.equal(new URL(page.url()).pathname, "/dashboard");
    assert.match((await page.textContent(".notice"))!, /password is changed/);

    // Create a key and read it from the page, once.
    await page.click("nav >> text=API keys");
    await shoot(page, "keys-empty");
    await page.fill("#key-name", "research laptop");
    await page.click("text=Create New Key");
    assert.equal(new URL(page.url()).pathname, "/dashboard/keys/new");
    const key = (await page.textContent("#new-key"))!.trim();
    assert.match(key, /^gds_[0-9A-Za-z]{49}$/);
    assert.match((await page.textContent("main"))!, /only time the full key is shown/);
    // The page's script shows the copy button once it has run: wait for that (isVisible, a look at
    // one instant, failed when both cores were busy and the script had not run yet).
    await page.locator("button[data-copy]").waitFor({ state: "visible" });
    await shoot(page, "key-created");
    await page.reload();
    assert.ok(!(await page.content()).includes(key), "a reload never shows the key again");
    assert.match((await page.textContent("main"))!, /shown already/);

    // Use it, and see its last use on the keys page.
    assert.equal((await server.raw(DATA, { headers: { "X-API-KEY": key } })).status, 200);
    await page.goto(server.url + "/dashboard/keys");
    const row = page.locator("tr", { hasText: "research laptop" });
    assert.match((await row.textContent())!, new RegExp(key.slice(0, 12)));
    assert.ok(!(await row.textContent())!.includes("never"), "last used is shown, from the running server");
    assert.match((await row.locator('td[data-label="Last used"] time').getAttribute("datetime"))!, /^\d{4}-/);
    await shoot(page, "keys");

    await page.goto(server.url + "/dashboard");
    assert.equal(await page.locator('svg.chart polygon[class*="fuel-"]').count(), 10, "one area per fuel");
    assert.ok(
      (await page.locator("svg.chart polygon.margin-gap").count()) >= 1,
      "the sample's supply margin is drawn",
    );
    assert.match((await page.textContent("main"))!, /normalized_data\s*1\s*1\s*0/);
    await shoot(page, "home");

    // Revoke, behind a confirmation.
    await page.goto(server.url + "/dashboard/keys");
    await row.locator("text=Revoke").click();
    assert.equal(new URL(page.url()).pathname, "/dashboard/keys/revoke");
    await shoot(page, "revoke-confirm");
    await page.click("button.danger");
    assert.match((await page.textContent(".notice"))!, /revoked/);
    const after = await server.raw(DATA, { headers: { "X-API-KEY": key } });
    assert.equal(after.status, 401);
    assert.deepEqual(await after.json(), { detail: "Invalid API key." });

    // A webhook: made by the form (two events ticked off), its secret shown once, a test event queued.
    await page.click("nav >> text=Webhooks");
    await page.fill("#webhook-url", "https://93.184.215.14/hooks/grid");
    await page.uncheck('input[name="events"][value="source.resumed"]');
    await page.uncheck('input[name="events"][value="forecast.issued"]');
    await page.check('input[name="datasets"][value="grid.system_state"]');
    await page.click("text=Create webhook");
    assert.match((await page.textContent("#new-secret"))!, /^whsec_[A-Za-z0-9+/=]+$/);
    await shoot(page, "webhook-secret");
    const [hook] = readSubscriptions(dir);
    assert.deepEqual(hook!.datasets, ["grid.system_state"]);
    assert.ok(!hook!.events.includes("forecast.issued") && hook!.events.includes("data.published"));
    await page.goto(server.url + "/dashboard/webhooks");
    // On a desktop the URL's column is not squeezed to a few letters a line beside the events.
    const url = page.locator('td[data-label="URL"] code.url');
    const box = (await url.boundingBox())!;
    const lineHeight = await url.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 20);
    assert.ok(box.height < 2.5 * lineHeight, `the URL takes ${box.height}px, ${lineHeight}px a line`);
    await shoot(page, "webhooks");
    await page.click("text=Deliveries");
    await page.click("text=Send test event");
    assert.match((await page.textContent(".notice"))!, /webhook\.test event is queued/);
    assert.match((await page.textContent("main table"))!, /webhook\.test\s*\S+[\s\S]*pending/);
    await shoot(page, "webhook");
    assert.deepEqual(scriptErrors, [], "no script or CSP errors on any page");
  },
);

test(
  "another account cannot see the key, and its revoke request for the key's id is refused",
  { skip: BROWSER_SKIP },
  async (t) => {
    const { dir, server } = await dashboardServer(t);
    await account(dir, "analyst");
    await account(dir, "intruder");
    const context = await browser().newContext({ viewport: DESKTOP });
    t.after(() => context.close());
    const owner = await context.newPage();
    await signIn(owner, server.url, "analyst", PASSWORD);
    await owner.goto(server.url + "/dashboard/keys");
    await owner.fill("#key-name", "desk key");
    await owner.click("text=Create New Key");
    const key = (await owner.textContent("#new-key"))!.trim();
    const id = readKeys(dir).find((k) => k.name === "desk key")!.id;

    const other = await (await browser().newContext()).newPage();
    t.after(() => other.context().close());
    await signIn(other, server.url, "intruder", PASSWORD);
    await other.goto(server.url + "/dashboard/keys");
    const text = (await other.content()) + (await other.textContent("main"));
    assert.ok(!text.includes(key.slice(0, 12)) && !text.includes("desk key"), "the key is not listed");
    const confirm = await other.goto(server.url + `/dashboard/keys/revoke?id=${id}`);
    assert.equal(confirm!.status(), 404);

    // The intruder's own valid token, the owner's key id: refused, nothing changes.
    await other.goto(server.url + "/dashboard/keys");
    const csrf = (await other.getAttribute("input[name=csrf]", "value"))!;
    const refused = await other.request.post(server.url + "/dashboard/keys/revoke", {
      form: { csrf, id },
      maxRedirects: 0,
    });
    assert.equal(refused.status(), 404);
    assert.equal(readKeys(dir).find((k) => k.id === id)!.revoked, null);
    assert.equal((await server.raw(DATA, { headers: { "X-API-KEY": key } })).status, 200);
  },
);

test(
  "an admin creates an account, sees every key, and sets a key's limits",
  { skip: BROWSER_SKIP },
  async (t) => {
    const { dir, server } = await dashboardServer(t);
    await account(dir, "boss", { admin: true });
    const context = await browser().newContext({ viewport: DESKTOP });
    t.after(() => context.close());
    const page = await context.newPage();
    await signIn(page, server.url, "boss", PASSWORD);
    await page.click("nav >> text=Admin");
    await page.fill("#account-name", "quant-desk");
    await page.click("text=Create account");
    assert.equal(new URL(page.url()).pathname, "/dashboard/admin/new");
    const password = (await page.textContent("#one-time-password"))!.trim();
    assert.match(password, /^[A-Za-z0-9]{20}$/);
    await shoot(page, "account-created");
    await page.click("text=Back to admin");

    // The new user's key shows up for the admin, who raises its limit.
    const user = await (await browser().newContext()).newPage();
    t.after(() => user.context().close());
    await signIn(user, server.url, "quant-desk", password);
    assert.equal(new URL(user.url()).pathname, "/dashboard/password");
    await page.reload();
    await page.locator("tr", { hasText: "test" }).first().waitFor();
    const { record } = (await import("../src/keys/key-admin.ts")).createKey(dir, {
      name: "bot",
      account: "quant-desk",
    });
    await page.reload();
    const row = page.locator("tr", { hasText: record.prefix });
    await row.locator('input[name="normalized_data"]').fill("600");
    await row.locator("text=Save").click();
    assert.match((await page.textContent(".notice"))!, /limits are saved/);
    assert.equal(readKeys(dir).find((k) => k.id === record.id)!.limits.normalized_data, 600);
    await shoot(page, "admin");
  },
);
