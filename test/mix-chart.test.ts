import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeHtml, html } from "../src/dashboard/html.ts";
import { mixChart, recentMixSeries } from "../src/dashboard/recent-mix.ts";
import { generationMix } from "../src/datasets/generation-mix.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { ingestTexts, tempDir } from "./helpers.ts";

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

const HOUR = 3_600_000;
const series = (hours: number, mw: (field: string, i: number) => number | null) =>
  (generationMix.chart.order ?? []).map((field, i) => ({
    label: field,
    cls: `fuel-${field}`,
    points: Array.from(
      { length: hours },
      (_, h) => [Date.parse("2025-06-01T00:00:00Z") + h * HOUR, mw(field, i)] as const,
    ),
  }));

test("the home page's chart stacks one area per fuel, bottom to top, in the explorer's chart, with a legend", () => {
  const svg = mixChart(series(48, (field) => (field === "thermal_mw" ? 20_000 : 1000))).text;
  assert.equal((svg.match(/<polygon class="area fuel-/g) ?? []).length, 10);
  assert.equal((svg.match(/<li><span class="swatch fuel-/g) ?? []).length, 10);
  // Nuclear at the bottom, other renewables on top, as generation mix's chart orders them.
  assert.ok(svg.indexOf("fuel-nuclear_mw") < svg.indexOf("fuel-other_re_mw"));
  // 29 GW in all: gridlines every 5 GW up to 30 (the explorer's axis labels, in thousands).
  for (const label of ["0", "10k", "20k", "30k"]) assert.match(svg, new RegExp(`>${label}</text`));
});

test("the home page's chart: nulls count as zero, negatives never dig below the axis, too few hours say so", (t) => {
  const svg = mixChart(series(2, (_field, i) => (i === 0 ? null : i === 1 ? -50 : 1000))).text;
  assert.doesNotMatch(svg, /NaN/);
  assert.match(mixChart([]).text, /Not enough stored hours/);
  assert.match(mixChart(series(1, () => 1)).text, /Not enough stored hours/);
  // Its hours are generation mix's records over the recent days.
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-06-01", days: 9 }) });
  const recent = recentMixSeries(createReadingStore({ dir }));
  assert.equal(recent.length, 10);
  assert.equal(recent[0]!.label, "Nuclear");
  // Seven UTC days, the last ending at the sample's last hour: 22:00 UTC, midnight in SAST.
  assert.equal(recent[0]!.points.length, 6 * 24 + 22);
});
