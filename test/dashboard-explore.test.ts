/**
 * The explorer (/dashboard/explore): for every dataset, a year at its long interval and a week at
 * 1h, the table behind the charts equals the API's records for the same parameters; the heatmaps
 * and the forecast's overlaid issues are drawn; a view's URL reopens it; the downloads are the
 * API's bytes; pages and data need a session, count against the account's limits and keep the
 * CSP; and in a real browser, with and without JavaScript, at desktop and phone widths.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ForecastIssues } from "../src/forecasts/forecast-issues.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { generateSampleForecastIssues, SAMPLE_FORECAST_NAME } from "../src/sample/sample-forecast.ts";
import { seedSamplePeriods } from "../src/sample/seed-sample-periods.ts";
import { DATASETS as DOCUMENTED } from "../src/datasets/registry.ts";
import {
  account,
  BROWSER_SKIP,
  Client,
  clock,
  PASSWORD,
  screenshotDir,
  sharedBrowser,
} from "./dashboard-helpers.ts";
import {
  exportCsv,
  ingestTexts,
  sast,
  startServer,
  tempDir,
  TEST_KEY_ACCOUNT,
  type TestServerOptions,
  writeFile,
} from "./helpers.ts";
import { ingestFiles } from "../src/ingest/ingest.ts";

const HOUR = 3_600_000;
const LAST_HOUR = Date.parse("2026-01-31T21:00:00Z");
// The year the explorer shows, made once for the file's tests.
const YEAR = generateSampleExport({ lastHour: LAST_HOUR, days: 366 });
const browser = sharedBrowser();
/** Limits no test of many views reaches (the account's page views count as a key's requests). */
const PLENTY = { normalized_data: 1000, features: 1000 };

/** A year of sample hours, its forecast issues and its weekly and monthly figures, served. */
async function explorer(t: TestContext, options: TestServerOptions = { limits: PLENTY }) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": YEAR });
  const issues = new ForecastIssues(dir);
  for (const { text, receivedAt } of generateSampleForecastIssues(LAST_HOUR + 2 * HOUR, 4)) {
    issues.add(text, { name: SAMPLE_FORECAST_NAME, receivedAt, sha256: String(receivedAt), sample: true });
  }
  seedSamplePeriods(dir, { lastHour: LAST_HOUR, days: 366 }, LAST_HOUR + 3 * HOUR);
  const c = clock(LAST_HOUR + 4 * HOUR);
  const server = await startServer(t, dir, { now: c.now, ...options });
  await account(dir, TEST_KEY_ACCOUNT);
  await account(dir, "analyst", { now: c.now });
  const client = new Client(server.url);
  assert.equal((await client.signIn("analyst", PASSWORD)).status, 303);
  return { dir, server, client };
}

const unescape = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/**
 * The table behind the charts: its header (the fields' names, each cell's `data-field`; its text
 * is the label) and its rows of cells, as the page writes them.
 */
function tableOf(page: string): { head: string[]; labels: string[]; rows: string[][] } {
  const table = /<table class="records"[\s\S]*?<\/table>/.exec(page)?.[0] ?? "";
  const cells = (row: string, tag: string) =>
    [...row.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, "g"))].map((m) =>
      unescape(m[1]!.trim()),
    );
  const thead = /<thead>([\s\S]*?)<\/thead>/.exec(table)?.[1] ?? "";
  const head = [...thead.matchAll(/data-field="([^"]*)"/g)].map((m) => unescape(m[1]!));
  const labels = cells(thead, "th");
  const rows = [...table.matchAll(/<tr data-t="[^"]*">([\s\S]*?)<\/tr>/g)].map((m) => cells(m[1]!, "td"));
  return { head, labels, rows };
}

/** Signs the browser page in as `analyst`, as a person would. */
async function signInAsAnalyst(page: Page, base: string): Promise<void> {
  await page.goto(base + "/dashboard/sign-in");
  await page.fill("#username", "analyst");
  await page.fill("#password", PASSWORD);
  await Promise.all([page.waitForURL(/\/dashboard$/), page.click("button[type=submit]")]);
}

/** The API request a page names in its curl line: the dataset's path and the query. */
function dataLink(page: string): { path: string; query: string } {
  const [, path, query] =
    /curl -H &quot;X-API-KEY: \$GDS_KEY&quot; &quot;http:\/\/[^/]+(\/api\/v1\/[^?&]+)\?(.*?)&quot;/.exec(
      page,
    ) ?? [];
  return { path: path!, query: unescape(query!) };
}

/** The page's download link of a format. */
function downloadLink(page: string, format: string): string {
  const href = new RegExp(`href="(/dashboard/explore/download\\?[^"]*)&amp;format=${format}"`).exec(
    page,
  )?.[1];
  return `${unescape(href!)}&format=${format}`;
}

// A record's cells as the API's JSON gives them, objects flattened as in the CSV.
function cellsOf(record: Record<string, unknown>): string[] {
  return Object.values(record).flatMap((value) =>
    value !== null && typeof value === "object"
      ? Object.values(value).map((v) => (v === null ? "" : String(v)))
      : [value === null ? "" : String(value as string | number)],
  );
}

test("for every dataset, a year and a week: the table behind the charts is the API's answer", async (t) => {
  const { server, client } = await explorer(t);
  for (const dataset of DOCUMENTED) {
    const long = dataset.intervals?.includes("1d") === false ? dataset.intervals[0]! : "1d";
    const views = [
      `range=year&interval=${long}`,
      ...(dataset.fields["1h"].length > 0 ? ["range=week&interval=1h"] : []),
    ];
    for (const view of views) {
      const res = await client.get(`/dashboard/explore?dataset=${dataset.id}&${view}`);
      const page = await res.text();
      assert.equal(res.status, 200, `${dataset.id} ${view}: ${page.slice(0, 300)}`);
      const { path, query } = dataLink(page);
      assert.equal(path, dataset.path);
      const api = (await (await server.get(`${path}?${query}`)).json()) as {
        data: Record<string, unknown>[];
      };
      assert.ok(api.data.length > 0, `${dataset.id} ${view} has data`);
      const { head, rows } = tableOf(page);
      assert.deepEqual(head.slice(0, 1), [Object.keys(api.data[0]!)[0]], `${dataset.id} ${view}`);
      assert.deepEqual(rows, api.data.map(cellsOf), `${dataset.id} ${view}: the table is the API's records`);
      assert.match(page, /<svg\s+class="chart/, `${dataset.id} ${view} draws a chart`);
    }
  }
});

test("heatmaps, the forecast's overlaid issues, the stress bands and the stacked mix are drawn", async (t) => {
  const { client } = await explorer(t);
  const page = async (query: string) => (await client.get(`/dashboard/explore?${query}`)).text();
  for (const id of ["grid.load_reduction", "features.grid_stress_index"]) {
    const week = await page(`dataset=${id}&range=week&interval=1h&tz=Africa/Johannesburg`);
    assert.match(week, /class="chart heatmap"/, `${id}: heatmap`);
    assert.equal([...week.matchAll(/class="heat-\d"/g)].length, 168, `${id}: a cell per hour`);
  }
  assert.match(
    await page("dataset=features.grid_stress_index&range=week&interval=1h"),
    /class="band band-critical"/,
  );
  const forecast = await page("dataset=forecasts.demand&range=week&interval=1h");
  assert.equal([...forecast.matchAll(/class="series issue-old/g)].length, 3, "three older issues");
  assert.equal([...forecast.matchAll(/class="series issue-newest"/g)].length, 1, "the newest on top");
  assert.ok(
    forecast.lastIndexOf("issue-newest") > forecast.lastIndexOf('class="series issue-old'),
    "drawn last",
  );
  const mix = await page("dataset=generation.mix&range=year&interval=1d");
  assert.equal([...mix.matchAll(/class="area fuel-/g)].length, 10, "ten fuels stacked");
});

test("a view's URL reopens it; the downloads are the API's bytes; unknown choices fall back and say so", async (t) => {
  const { server, client } = await explorer(t);
  const url =
    "/dashboard/explore?dataset=grid.system_state&range=custom&start=2026-01-10&end=2026-01-17&interval=1h&tz=Africa/Johannesburg&fields=residual_demand_mw&fields=total_re_mw";
  const page = await (await client.get(url)).text();
  assert.match(page, /value="grid.system_state"\s+selected>/);
  assert.match(page, /name="start" value="2026-01-10"/);
  assert.match(page, /value="residual_demand_mw"\s+checked/);
  const { path, query } = dataLink(page);
  assert.equal(
    query,
    "start=2026-01-10&end=2026-01-17&tz=Africa%2FJohannesburg&columns=residual_demand_mw%2Ctotal_re_mw",
  );
  assert.deepEqual(tableOf(page).head, ["ts", "residual_demand_mw", "total_re_mw"]);
  assert.deepEqual(tableOf(page).labels, ["Hour", "Residual demand", "Renewables"]);
  assert.match(page, /title="residual_demand_mw"><input[^>]*\/> Residual demand <span class="unit">MW/);
  for (const format of ["csv", "parquet"]) {
    const mine = await client.get(downloadLink(page, format));
    const api = await server.get(`${path}?${query}&format=${format}`);
    assert.equal(mine.status, 200);
    assert.deepEqual(Buffer.from(await mine.arrayBuffer()), Buffer.from(await api.arrayBuffer()), format);
  }
  assert.match(
    page,
    /curl -H &quot;X-API-KEY: \$GDS_KEY&quot; &quot;http:\/\/127\.0\.0\.1:\d+\/api\/v1\/grid\/system-state\?start=2026-01-10/,
  );
  assert.match(page, /Client\(\)\.get\(&quot;grid\.system_state&quot;, &quot;2026-01-10&quot;/);
  const coarse = await (
    await client.get("/dashboard/explore?dataset=grid.system_state&range=year&interval=1h")
  ).text();
  assert.match(coarse, /points at 1h are too many to draw: drawn at 1d/);
  const empty = await (
    await client.get(
      "/dashboard/explore?dataset=grid.system_state&range=custom&start=2020-01-01&end=2020-01-08",
    )
  ).text();
  assert.match(empty, /No data of grid\.system_state from 2020-01-01 to 2020-01-08\./);
});

test("pages and data need a session, count against the account's limits and keep a strict CSP", async (t) => {
  const { server, client } = await explorer(t, { limits: { normalized_data: 2 } });
  const anonymous = await fetch(`${server.url}/dashboard/explore?dataset=generation.mix`, {
    redirect: "manual",
  });
  assert.equal(anonymous.status, 303);
  assert.equal(anonymous.headers.get("location"), "/dashboard/sign-in");
  const data = `/dashboard/explore/download?dataset=generation.mix&range=custom&start=2026-01-01&end=2026-01-02&format=csv`;
  const noSession = await server.get(data, { redirect: "manual" });
  assert.equal(noSession.status, 303, "a key is not a session");
  assert.equal(noSession.headers.get("location"), "/dashboard/sign-in");
  const first = await client.get("/dashboard/explore?dataset=generation.mix&range=day");
  const csp = first.headers.get("content-security-policy")!;
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|https?:/);
  const body = await first.text();
  assert.doesNotMatch(body, /<script(?![^>]*\bsrc="\/dashboard\/assets\/)/, "no inline script");
  assert.equal((await client.get(data)).status, 200);
  // Each view's data is a request of the dataset's own route, made in-process for the account:
  // logged as the API logs a key's request, with the account in place of the key's prefix.
  const asked = server.logs.filter((l) => l.path === "/api/v1/generation/mix");
  assert.deepEqual(
    asked.map((l) => [l.method, l.status, l.key]),
    [
      ["GET", 200, "dashboard:analyst"],
      ["GET", 200, "dashboard:analyst"],
    ],
  );
  const refused = await client.get("/dashboard/explore?dataset=grid.system_state&range=day");
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get("retry-after")) > 0);
  assert.match(
    await refused.text(),
    /Your account&#39;s limit for normalized_data is spent .*Request was throttled/,
  );
  assert.deepEqual(
    server.logs.filter((l) => l.path === "/api/v1/grid/system-state").map((l) => [l.status, l.key]),
    [[429, "dashboard:analyst"]],
    "the same 429 as a key's",
  );
  // The overview counts the account's explorer requests beside its keys': 2 allowed, 1 throttled.
  const overview = await (await client.get("/dashboard")).text();
  assert.match(
    overview,
    /normalized_data<\/span><\/td>\s*<td data-label="Today">2<\/td>\s*<td data-label="7 days">2<\/td>\s*<td data-label="Throttled, 7 days">1<\/td>/,
  );
  // The key's own window is its own: the account's page views did not spend it.
  assert.equal((await server.get("/api/v1/generation/mix?start=2026-01-01&end=2026-01-02")).status, 200);
});

test(
  "in a browser: drawn with JavaScript off, hover values with it, at desktop and phone widths",
  { skip: BROWSER_SKIP },
  async (t) => {
    const { server } = await explorer(t);
    const dir = screenshotDir();
    for (const javaScriptEnabled of [false, true]) {
      const context = await browser().newContext({
        javaScriptEnabled,
        viewport: { width: 1280, height: 900 },
      });
      t.after(() => context.close());
      const page = await context.newPage();
      await signInAsAnalyst(page, server.url);
      const views: [string, string][] = [
        ["generation.mix&range=week&interval=1h&tz=Africa/Johannesburg", "mix-week"],
        [
          "grid.load_reduction&range=custom&start=2025-07-01&end=2025-08-01&interval=1h&tz=Africa/Johannesburg",
          "load-reduction-july",
        ],
        ["features.grid_stress_index&range=week&interval=1h", "grid-stress-week"],
        ["forecasts.demand&range=week&interval=1h", "forecast-issues"],
        ["grid.availability_weekly&range=year", "availability-weekly-year"],
        ["grid.system_state&range=year&interval=1d", "system-state-year"],
        ["features.load_shedding_outlook&interval=1h", "outlook-now"],
      ];
      for (const [query, name] of views) {
        await page.goto(`${server.url}/dashboard/explore?dataset=${query}`);
        assert.ok(
          (await page.locator("svg.chart").count()) > 0,
          `${name}: drawn (JavaScript ${javaScriptEnabled ? "on" : "off"})`,
        );
        if (!javaScriptEnabled) continue;
        await page.screenshot({ path: join(dir, `explore-${name}-desktop.png`), fullPage: true });
        await page.setViewportSize({ width: 390, height: 844 });
        await page.screenshot({ path: join(dir, `explore-${name}-phone.png`), fullPage: true });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 1, `${name}: nothing sticks out sideways on a phone (${overflow} px)`);
        await page.setViewportSize({ width: 1280, height: 900 });
      }
      if (javaScriptEnabled) {
        await page.goto(`${server.url}/dashboard/explore?dataset=grid.system_state&range=week&interval=1h`);
        const chart = page.locator("svg.chart[data-t0]").first();
        const box = (await chart.boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.locator("#hover").waitFor({ state: "visible" });
        assert.match(
          (await page.locator("#hover").textContent())!,
          /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: .*Residual demand -?\d[\d.]* MW/,
        );
      }
    }
  },
);

test(
  "in a browser: the readout beside a null names each value's own field; on a phone the chart comes first",
  { skip: BROWSER_SKIP },
  async (t) => {
    // Two days of residual demand and renewables only: every record has a null between them.
    const dir = tempDir(t);
    const first = Date.parse("2026-01-10T00:00:00Z");
    const rows = Array.from({ length: 48 }, (_, h) => [sast(first + h * HOUR), 20_000 + h, 3_000 + h]);
    ingestTexts(dir, { "export.csv": exportCsv(["Residual Demand", "Total RE"], rows) });
    const server = await startServer(t, dir, { limits: PLENTY });
    await account(dir, "analyst");
    const context = await browser().newContext({ viewport: { width: 390, height: 844 } });
    t.after(() => context.close());
    const page = await context.newPage();
    await signInAsAnalyst(page, server.url);
    await page.goto(
      `${server.url}/dashboard/explore?dataset=grid.system_state&range=custom&start=2026-01-10&end=2026-01-12&interval=1h`,
    );
    const chart = page.locator("svg.chart[data-t0]").first();
    const box = (await chart.boundingBox())!;
    assert.ok(
      box.y + box.height <= 844,
      `the chart is above the fold at 390×844 (its bottom at ${box.y + box.height})`,
    );
    await page.screenshot({ path: join(screenshotDir(), "explore-null-readout-phone.png") });
    // The pointer at 2026-01-10 12:00 UTC, the record of 20012 and 3012.
    const at = first + 12 * HOUR;
    const [x0, x1, t0, t1] = await chart.evaluate((svg) =>
      ["x0", "x1", "t0", "t1"].map((k) => Number((svg as SVGElement).dataset[k])),
    );
    const width = await chart.evaluate((svg) => (svg as SVGSVGElement).viewBox.baseVal.width);
    const x = box.x + ((x0! + ((at - t0!) / (t1! - t0!)) * (x1! - x0!)) / width) * box.width;
    await page.mouse.move(x, box.y + box.height / 2);
    await page.locator("#hover").waitFor({ state: "visible" });
    assert.equal(
      await page.locator("#hover").textContent(),
      "2026-01-10 12:00 UTC: Residual demand 20012 MW, Renewables 3012 MW",
    );
  },
);

test("the outlook: issued as of an instant, with what then happened drawn over it, asked without a range", async (t) => {
  // The year ingested in two parts: to ten days before its end at T1, the rest at T2.
  const dir = tempDir(t);
  const [header, ...rows] = YEAR.trimEnd().split("\n");
  const cut = sast(LAST_HOUR - 10 * 24 * HOUR).slice(0, 10);
  const part = (keep: (row: string) => boolean) => [header, ...rows.filter(keep)].join("\n") + "\n";
  const T1 = LAST_HOUR - 9 * 24 * HOUR;
  const T2 = LAST_HOUR + 2 * HOUR;
  ingestFiles(
    [
      writeFile(
        tempDir(t),
        "first.csv",
        part((r) => r < cut),
      ),
    ],
    { dir, now: () => T1 },
  );
  ingestFiles(
    [
      writeFile(
        tempDir(t),
        "rest.csv",
        part((r) => r >= cut),
      ),
    ],
    { dir, now: () => T2 },
  );
  const c = clock(LAST_HOUR + 4 * HOUR);
  const server = await startServer(t, dir, { now: c.now, limits: PLENTY });
  await account(dir, "analyst", { now: c.now });
  const client = new Client(server.url);
  assert.equal((await client.signIn("analyst", PASSWORD)).status, 303);

  const asOf = new Date(T1 + HOUR).toISOString();
  const page = await (
    await client.get(`/dashboard/explore?dataset=features.load_shedding_outlook&as_of=${asOf}`)
  ).text();
  const { path, query } = dataLink(page);
  assert.equal(path, "/api/v1/features/load-shedding-outlook");
  assert.equal(new URLSearchParams(query).has("start"), false, "no range");
  const api = (await (await server.get(`${path}?${query}`)).json()) as { data: Record<string, unknown>[] };
  assert.ok(api.data.length > 168);
  assert.deepEqual(tableOf(page).rows, api.data.map(cellsOf), "the table is the API's records");
  assert.match(page, /<svg\s+class="chart/);
  assert.match(page, /class="swatch outcome[^"]*"><\/span>Load reduction \(1: it happened\)/);
  assert.doesNotMatch(page, /name="range"/, "no range to choose");
  assert.match(unescape(page), /df = Client\(\)\.outlook\(interval="1h", tz="Africa\/Johannesburg", as_of="/);
  // Issued now, its hours are after every stored one: nothing has happened yet to draw over it.
  const now = await (
    await client.get("/dashboard/explore?dataset=features.load_shedding_outlook&interval=1d")
  ).text();
  assert.match(now, /<svg\s+class="chart/);
  assert.doesNotMatch(now, /Load reduction \(1: it happened\)/);
});
