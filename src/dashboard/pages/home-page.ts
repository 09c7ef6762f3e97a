/** The dashboard's home: the account's use of the API, a look at the data, and how to start. */
import type { Tally } from "../../usage/request-counts.ts";
import { html, type Html } from "../html.ts";
import { layout, type PageContent, type Viewer } from "../layout.ts";
import { count, when } from "./format.ts";

/** What the home page shows. */
export interface HomeData {
  readonly viewer: Viewer;
  readonly scopes: readonly string[];
  /** Days oldest first, the last being today (UTC), with tallies by scope. */
  readonly usage: Readonly<Record<string, Readonly<Record<string, Tally>>>>;
  readonly activeKeys: number;
  readonly chart: Html;
  /** The last 7 stored days' available capacity beside residual demand. */
  readonly margin: Html;
  /** The last 7 stored days' load shedding (manual load reduction), as bars. */
  readonly shedding: Html;
  /** The newest hour with an actual reading, or null. */
  readonly lastAvailable: string | null;
  /** Whether that hour is older than STALE_AFTER_H (as /healthz says). */
  readonly stale: boolean;
  /** Why, when it is stale. */
  readonly staleReason?: string;
  readonly staleAfterHours: number;
  /** Whether the store holds generated sample data, not Eskom's. */
  readonly sample: boolean;
  /** When `pull` last succeeded, or null. */
  readonly lastPull: string | null;
  /** A ready-to-run request, with a placeholder for the key. */
  readonly curl: string;
  readonly notice?: PageContent["notice"];
}

function usageTable(data: HomeData): Html {
  const days = Object.keys(data.usage);
  const today = days[days.length - 1]!;
  const sum = (scope: string, which: keyof Tally, only?: string) =>
    days
      .filter((d) => only === undefined || d === only)
      .reduce((n, d) => n + (data.usage[d]![scope]?.[which] ?? 0), 0);
  return html`<table class="numbers">
    <thead>
      <tr>
        <th>Scope</th>
        <th>Today</th>
        <th>7 days</th>
        <th>Throttled, 7 days</th>
      </tr>
    </thead>
    <tbody>
      ${data.scopes.map(
        (scope) =>
          html`<tr>
            <td data-label="Scope"><span class="scope">${scope}</span></td>
            <td data-label="Today">${count(sum(scope, "allowed", today))}</td>
            <td data-label="7 days">${count(sum(scope, "allowed"))}</td>
            <td data-label="Throttled, 7 days">${count(sum(scope, "throttled"))}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function dailyBars(data: HomeData): Html {
  const days = Object.keys(data.usage);
  const totals = days.map((d) => Object.values(data.usage[d]!).reduce((n, t) => n + t.allowed, 0));
  const max = Math.max(1, ...totals);
  return html`<ol class="bars" aria-label="Requests per day, last 7 days">
    ${days.map(
      (d, i) =>
        html`<li>
          <span class="day">${d.slice(5)}</span
          ><meter min="0" max="${max}" value="${totals[i]}" title="${count(totals[i]!)} requests"></meter
          ><span class="n">${count(totals[i]!)}</span>
        </li>`,
    )}
  </ol>`;
}

// Shown instead of the stale warning: a sample is not meant to be current, and must not pass as real.
function sampleNotice(): Html {
  return html`<p class="warning sample" role="status">
    <strong>Sample data: generated, not Eskom's.</strong> Every number on this page and in every API answer
    (marked <code>meta.sample</code> and <code>Data-Source: sample</code>) was made up by this service for
    trying it out. The operator replaces it with the portal's data by running <code>make pull</code>.
  </p>`;
}

// The generation chart and the supply margin beside it, over the same days.
function charts(data: HomeData): Html {
  return html`${
      data.stale && !data.sample
        ? html`<p class="warning" role="status">
            The data is stale:
            ${data.staleReason ?? `nothing new for more than ${String(data.staleAfterHours)} hours`}. Scripts
            still get answers, with <code>meta.data_delay</code> true for recent ranges;
            <code>/healthz</code> lists each portal file's state.
          </p>`
        : ""
    }
    <div class="grid charts">
      <section class="card">
        <h2>Generation by fuel, last 7 stored days</h2>
        <p class="hint">
          Newest actual reading: ${when(data.lastAvailable, "none yet")}. Last pull from the portal:
          ${when(data.lastPull)}. Hourly, UTC, in MW, from <code>/api/v1/generation/mix</code>.
        </p>
        ${data.chart}
      </section>
      <section class="card">
        <h2>Supply margin, last 7 stored days</h2>
        <p class="hint">
          Available capacity above residual demand, hourly, UTC, in MW, from
          <code>/api/v1/grid/supply-margin</code>.
        </p>
        ${data.margin}
      </section>
    </div>`;
}

/** The home page. */
export function homePage(data: HomeData): string {
  return layout({
    title: "Overview",
    viewer: data.viewer,
    current: "home",
    notice: data.notice,
    body: html`<h1 class="page-title">Hello, ${data.viewer.account}</h1>
      ${data.sample ? sampleNotice() : ""}
      <div class="grid">
        <section class="card">
          <h2>Your requests</h2>
          <p class="hint">
            Counted by the service across your keys (${data.activeKeys} active now), per UTC day.
          </p>
          ${usageTable(data)} ${dailyBars(data)}
        </section>
        <section class="card">
          <h2>Get started</h2>
          <ol class="steps">
            <li><a href="/dashboard/keys">Create a key</a> and store it.</li>
            <li>Ask for a range:</li>
          </ol>
          <pre class="command"><code id="curl-line">${data.curl}</code></pre>
          <button type="button" class="copy secondary" data-copy="curl-line" hidden>Copy</button>
          <p class="hint">
            Replace <code>YOUR_KEY</code> with your key. Add <code>&amp;format=csv</code> for CSV,
            <code>&amp;interval=1d</code> for daily records. Every endpoint and field:
            <a href="/docs">the API reference</a>, where you can try each request with your key.
          </p>
        </section>
      </div>
      ${charts(data)}
      <section class="card">
        <h2>Load shedding, last 7 stored days</h2>
        <p class="hint">
          Manual load reduction (MLR) instructed by the system operator, per UTC day, from
          <code>/api/v1/grid/load-reduction</code>.
        </p>
        ${data.shedding}
      </section>`,
  });
}
