/** The home page's supply-margin chart (src/dashboard/recent-supply-margin.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { marginChart, recentMarginHours } from "../src/dashboard/recent-supply-margin.ts";
import { ingestSources } from "../src/ingest/ingest.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { liveCsv, tempDir } from "./helpers.ts";

const HOUR = 3_600_000;

test("the chart draws capacity above demand with the gap shaded, breaks at gaps, and names the tightest hour", () => {
  const start = Date.parse("2025-06-01T00:00:00Z");
  const hours = [0, 1, 2, 5, 6].map((i) => ({
    hour: start + i * HOUR,
    available: 30_000,
    demand: 25_000 + i * 500,
  }));
  const svg = marginChart(hours).text;
  assert.equal((svg.match(/<polygon\s+class="margin-gap"/g) ?? []).length, 2, "one shape per run of hours");
  const available = /<g class="series margin-available"[\s\S]*?<\/g/.exec(svg)![0];
  assert.equal((available.match(/<polyline /g) ?? []).length, 2, "the line breaks at the gap");
  assert.match(svg, /<li><span class="swatch margin-gap"><\/span>Margin<\/li>/);
  assert.match(svg, /Tightest hour: 2025-06-01 06:00 UTC, 2,000 MW spare\s+\(7\.1% of residual demand\)/);
  assert.doesNotMatch(svg, /NaN/);
  assert.match(marginChart([]).text, /No available capacity in the stored days/);
});

test("an hour of demand above capacity is shaded as shortfall, never as margin, and said as such", () => {
  const start = Date.parse("2025-06-01T00:00:00Z");
  const hours = [28_000, 31_000, 26_000].map((demand, i) => ({
    hour: start + i * HOUR,
    available: 30_000,
    demand,
  }));
  const svg = marginChart(hours).text;
  assert.equal((svg.match(/<polygon\s+class="margin-short"/g) ?? []).length, 1);
  assert.match(svg, /Shortfall<\/li>/);
  // The margin's shape never rises above the demand line: at the short hour it has no height.
  const gap = /<polygon\s+class="margin-gap"\s+points="([^"]+)"/
    .exec(svg)![1]!
    .split(" ")
    .map((p) => p.split(",").map(Number));
  const [top, bottom] = [gap.slice(0, 3), gap.slice(3).reverse()];
  assert.equal(top[1]![1], bottom[1]![1]);
  assert.match(
    svg,
    /Tightest hour: 2025-06-01 01:00 UTC, residual demand 1,000 MW above available\s+capacity\s+\(3\.2% of residual demand\)/,
  );
  assert.doesNotMatch(
    marginChart(hours.map((h) => ({ ...h, demand: 20_000 }))).text,
    /margin-short|Shortfall/,
  );
});

test("the chart's hours come from the supply-margin dataset over the mix chart's days", (t) => {
  const dir = tempDir(t);
  const received = Date.parse("2025-06-03T04:10:00Z");
  const capacity = liveCsv(
    [
      "DateTimeKey",
      "Available Capacity Incl Non Comm Units",
      "Available_Capacity_Incl_Non_Comm_Units_Incl_Total_RE",
      "Residual Demand",
      "RSA Contracted Demand",
    ],
    [
      ["2025-06-02 10:00:00", 28_000.5, 30_000.5, 24_000.25, 26_000.25],
      ["2025-06-02 11:00:00", 28_100.5, 30_100.5, 24_100.25, 26_100.25],
    ],
  );
  const demand = liveCsv(
    [
      "DateTimeKey",
      "Residual Forecast",
      "RSA Contracted Forecast",
      "Residual Demand",
      "RSA Contracted Demand",
    ],
    [
      ["2025-06-02 10:00:00", "", "", 24_010.5, 26_010.5],
      ["2025-06-02 11:00:00", "", "", 24_110.5, 26_110.5],
    ],
  );
  const summary = ingestSources(
    [
      { name: "System_hourly_actual_and_forecasted_demand.csv", text: demand, receivedAt: received },
      { name: "System_hourly_demand_and_available_capacity.csv", text: capacity, receivedAt: received },
    ],
    { dir },
  );
  assert.deepEqual(summary.failures, []);
  const hours = recentMarginHours(createReadingStore({ dir }));
  assert.deepEqual(
    hours,
    [
      { hour: Date.parse("2025-06-02T08:00:00Z"), available: 28_000.5, demand: 24_010.5 },
      { hour: Date.parse("2025-06-02T09:00:00Z"), available: 28_100.5, demand: 24_110.5 },
    ],
    "demand is the demand file's, not the capacity file's copy",
  );
});
