import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeHtml, html } from "../src/dashboard/html.ts";
import { CHART_FUELS, mixChart } from "../src/dashboard/mix-chart.ts";

test("interpolated text is escaped; nested html, arrays and empty values compose", () => {
  const name = `<script>alert("x")</script>&'`;
  assert.equal(
    html`<p>${name}</p>`.text,
    "<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>",
  );
  // prettier-ignore
  assert.equal(html`<ul>${["a", "<b>"].map((x) => html`<li>${x}</li>`)}</ul>`.text, "<ul><li>a</li><li>&lt;b&gt;</li></ul>");
  assert.equal(html`${null}${undefined}${false}${0}`.text, "0");
  assert.equal(escapeHtml('"'), "&quot;");
});

test("the chart stacks one area per fuel, bottom to top, with a legend and GW gridlines", () => {
  const start = Date.parse("2025-06-01T00:00:00Z");
  const hours = Array.from({ length: 48 }, (_, i) => ({
    hour: start + i * 3_600_000,
    mw: Object.fromEntries(CHART_FUELS.map((f) => [f.field, f.field === "thermal_mw" ? 20_000 : 1000])),
  }));
  const svg = mixChart(hours).text;
  assert.equal((svg.match(/<polygon /g) ?? []).length, CHART_FUELS.length);
  assert.equal((svg.match(/<li>/g) ?? []).length, CHART_FUELS.length);
  // 29 GW in all: gridlines every 10 GW up to 30.
  for (const label of ["0", "10", "20", "30"]) assert.match(svg, new RegExp(`>\\s*${label}\\s*</text`));
  assert.match(svg, />\s*2 Jun\s*</, "a tick at each UTC midnight");
  // The top of the last layer at every hour is the total: 29 of 30 GW, in a plot from y 16.8
  // (room for half a label above it) 235.2 high (two labels' room under it, in 300).
  const top = /class="fuel-other_re_mw" points="([^"]+)"/.exec(svg)![1]!.split(" ")[0]!.split(",")[1];
  assert.ok(Math.abs(Number(top) - (16.8 + 235.2 - (29 / 30) * 235.2)) < 0.06, `top at ${top}`);
});

test("a date at either end of the chart is drawn inward, not past its edge", () => {
  const hour = (iso: string) => ({ hour: Date.parse(iso), mw: { thermal_mw: 20_000 } });
  const dates = (svg: string) =>
    [...svg.matchAll(/text-anchor="(\w+)"\s*>\s*(\d+ \w+)\s*</g)].map(
      ([, anchor, date]) => `${date} ${anchor}`,
    );
  // Seven days to a day pulled one hour in: its midnight is at the right edge.
  const week = dates(mixChart([hour("2025-05-27T01:00:00Z"), hour("2025-06-03T01:00:00Z")]).text);
  assert.deepEqual(week.slice(-2), ["2 Jun middle", "3 Jun end"]);
  assert.deepEqual(dates(mixChart([hour("2025-06-01T00:00:00Z"), hour("2025-06-03T00:00:00Z")]).text), [
    "1 Jun middle",
    "2 Jun middle",
    "3 Jun end",
  ]);
});

test("nulls count as zero, negatives never dig below the axis, and too few hours say so", () => {
  const start = Date.parse("2025-06-01T00:00:00Z");
  const svg = mixChart([
    { hour: start, mw: { thermal_mw: null, wind_mw: -50 } },
    { hour: start + 3_600_000, mw: { thermal_mw: 1000 } },
  ]).text;
  assert.doesNotMatch(svg, /NaN/);
  assert.match(mixChart([]).text, /Not enough stored hours/);
});
