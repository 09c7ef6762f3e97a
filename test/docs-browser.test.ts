/**
 * `/docs` in a real browser (Debian's chromium, driven by playwright-core): the reference renders
 * from the service's own files under its CSP, shows the datasets, their fields and the key header,
 * and a request sent from the page with a real key answers 200. Screenshots in test-output/.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { BROWSER_SKIP, dashboardServer, sharedBrowser, screenshotDir } from "./dashboard-helpers.ts";

const browser = sharedBrowser();

test("/docs is served from the service's own files with its CSP, and needs no key", async (t) => {
  const { server } = await dashboardServer(t);
  const page = await server.raw("/docs");
  assert.equal(page.status, 200);
  const csp = page.headers.get("content-security-policy")!;
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /script-src[^;]*unsafe/);
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");
  const html = await page.text();
  for (const src of html.matchAll(/(?:src|href)="([^"]+)"/g))
    assert.match(src[1]!, /^\//, "every asset is local");
  assert.doesNotMatch(html, /<script>/, "no inline script");
  const bundle = await server.raw("/docs/assets/swagger-ui-bundle.js", {
    headers: { "Accept-Encoding": "br" },
  });
  assert.equal(bundle.status, 200);
  assert.match(bundle.headers.get("cache-control")!, /max-age=86400/);
  assert.ok(bundle.headers.get("etag"));
  const again = await server.raw("/docs/assets/swagger-ui-bundle.js", {
    headers: { "If-None-Match": bundle.headers.get("etag")! },
  });
  assert.equal(again.status, 304);
});

test(
  "the reference renders in chromium, shows the datasets, fields and key header, and sends a request with a key",
  { skip: BROWSER_SKIP },
  async (t) => {
    const { server } = await dashboardServer(t);
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const outside: string[] = [];
    const violations: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) outside.push(r.url());
    });
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector(".opblock", { timeout: 30_000 });
    const text = await page.textContent("#swagger-ui");
    for (const path of [
      "/api/v1/grid/system-state",
      "/api/v1/generation/mix",
      "/api/v1/features/grid-stress",
    ])
      assert.ok(text!.includes(path), path);
    // The picker names the address requests go to, not the document's relative "../..".
    assert.equal((await page.textContent(".servers select option"))?.trim(), `${server.url} - This service`);
    await page.screenshot({ path: join(screenshotDir(), "docs-desktop.png"), fullPage: false });

    // The key, once, under Authorize: kept in the page, sent in X-API-KEY.
    await page.click("button.authorize");
    await page.fill(".modal-ux input[type=text], .modal-ux input[type=password]", server.key);
    await page.click(".modal-ux button.authorize");
    await page.click(".modal-ux button.close-modal");

    // The system-state operation: its fields, then Try it out with a range.
    await page.click("#operations-datasets-getGridSystemState .opblock-summary");
    await page.waitForSelector("#operations-datasets-getGridSystemState .try-out__btn");
    const op = await page.textContent("#operations-datasets-getGridSystemState");
    assert.ok(op!.includes("residual_demand_mw"), "the record's fields are shown");
    assert.ok(op!.includes("X-API-KEY") || text!.includes("X-API-KEY"), "the key header is named");
    await page.click("#operations-datasets-getGridSystemState .try-out__btn");
    await page.fill(
      '#operations-datasets-getGridSystemState tr[data-param-name="start"] input',
      "2025-06-05T00:00:00Z",
    );
    await page.fill(
      '#operations-datasets-getGridSystemState tr[data-param-name="end"] input',
      "2025-06-05T06:00:00Z",
    );
    const answered = page.waitForResponse((r) => r.url().includes("/api/v1/grid/system-state?"));
    await page.click("#operations-datasets-getGridSystemState .execute");
    const response = await answered;
    const answer = await response.text();
    assert.equal(response.status(), 200, `${response.url()} answered ${answer}`);
    assert.equal(response.request().headers()["x-api-key"], server.key, "the key goes in the header");
    assert.ok(!response.url().includes(server.key), "never in the URL");
    await page.waitForSelector("#operations-datasets-getGridSystemState .live-responses-table");
    await page.screenshot({ path: join(screenshotDir(), "docs-try-it-desktop.png"), fullPage: false });
    assert.equal(
      await page.evaluate(() => JSON.stringify(localStorage).includes("gds_")),
      false,
      "no key stored",
    );

    const phone = await browser().newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${server.url}/docs`);
    await phone.waitForSelector(".opblock", { timeout: 30_000 });
    await phone.screenshot({ path: join(screenshotDir(), "docs-phone.png"), fullPage: false });
    await context.close();
    await phone.close();
    assert.deepEqual(outside, [], "nothing is loaded from another host");
    assert.deepEqual(violations, [], "no CSP violation");
  },
);

test(
  "when the page's own fetch of the OpenAPI document fails, Swagger UI loads it by URL and still renders",
  { skip: BROWSER_SKIP },
  async (t) => {
    const { server } = await dashboardServer(t);
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    t.after(() => page.close());
    // The first request for the document (docs.js's own) fails; Swagger UI's, after it, is served.
    let asked = 0;
    await page.route("**/api/v1/openapi.json", (route) =>
      asked++ === 0 ? route.fulfill({ status: 503, body: "unavailable" }) : route.continue(),
    );
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector(".opblock", { timeout: 30_000 });
    assert.equal(asked, 2, "docs.js asked once, then Swagger UI did");
    assert.ok((await page.textContent("#swagger-ui"))!.includes("/api/v1/grid/system-state"));
    // Loaded by URL, the picker shows the document's own relative server.
    assert.equal((await page.textContent(".servers select option"))?.trim(), "../.. - This service");
  },
);
