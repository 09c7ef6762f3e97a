/**
 * `/dashboard/explore`: the charts drawn on the server first, each field named by its label and
 * unit; then a form (a GET, so the view is its URL) to choose another view, the records as a
 * table, the downloads of exactly what is shown, and the same request as curl and Python with the
 * reader's own key named by its prefix only.
 */
import { intervalsOf } from "../../records/dataset.ts";
import type { DatasetDefinition } from "../../datasets/registry.ts";
import { ZONE_OFFSET_MS, ZONES } from "../../periods.ts";
import { labelOf } from "../explore/explore-charts.ts";
import { html, type Html } from "../html.ts";
import { layout, type Viewer } from "../layout.ts";
import {
  chartFields,
  EXPLORE_DOWNLOAD,
  type ExploreView,
  PRESETS,
  viewUrl,
} from "../explore/explore-view.ts";

/** What the page shows. */
export interface ExplorePage {
  readonly viewer: Viewer;
  readonly datasets: readonly DatasetDefinition[];
  readonly view: ExploreView;
  /** The API query of the view (`format` aside). */
  readonly query: URLSearchParams;
  readonly charts: readonly Html[];
  readonly table: Html | undefined;
  /** Why there is nothing to draw, or why the data request was refused. */
  readonly empty?: { readonly kind: "empty" | "refused"; readonly text: string };
  readonly sample: boolean;
  readonly baseUrl: string;
  /** The prefix of one of the reader's keys, to name in the copied requests. */
  readonly keyPrefix: string | null;
}

const RANGE_LABELS: Readonly<Record<string, string>> = {
  day: "Last day",
  week: "Last week",
  month: "Last month",
  year: "Last year",
  custom: "From … to …",
};

const selected = (yes: boolean) => (yes ? html` selected` : "");
const checked = (yes: boolean) => (yes ? html` checked` : "");

function form(page: ExplorePage): Html {
  const { view } = page;
  const intervals = intervalsOf(view.dataset);
  const fields = chartFields(view.dataset, view.interval);
  return html`<form class="explore" method="get" action="/dashboard/explore">
    <label
      >Dataset
      <select name="dataset">
        ${page.datasets.map((d) => html`<option value="${d.id}" ${selected(d.id === view.dataset.id)}>${d.title}</option>`)}
      </select></label
    >
    ${
      // The outlook is asked without a range: its hours are its issue's (now, or as of).
      view.preset === "issued"
        ? ""
        : html`<label
              >Range
              <select name="range">
                ${[...Object.keys(PRESETS), "custom"].map((r) => html`<option value="${r}" ${selected(r === view.preset)}>${RANGE_LABELS[r]}</option>`)}
              </select></label
            >
            <label>From <input type="date" name="start" value="${view.start}" /></label>
            <label>To <input type="date" name="end" value="${view.end}" /></label>`
    }
    <label
      >Interval
      <select name="interval">
        ${intervals.map((i) => html`<option value="${i}" ${selected(i === view.interval)}>${i}</option>`)}
      </select></label
    >
    <label
      >Zone
      <select name="tz">
        ${ZONES.map((z) => html`<option value="${z}" ${selected(z === view.tz)}>${z === "UTC" ? "UTC" : "SAST (Africa/Johannesburg)"}</option>`)}
      </select></label
    >
    <label
      >As of
      <input type="text" name="as_of" value="${view.asOf ?? ""}" placeholder="e.g. 2025-06-02T12:00:00Z"
    /></label>
    ${
      view.issues === undefined
        ? ""
        : html`<label
            >Issues
            <select name="issues">
              <option value="all" ${selected(view.issues === "all")}>every issue, overlaid</option>
              <option value="latest" ${selected(view.issues === "latest")}>the newest of each hour</option>
            </select></label
          >`
    }
    <fieldset class="fields">
      <legend>Fields (none ticked: all)</legend>
      ${fields.map((f) => html`<label class="field" title="${f.name}"><input type="checkbox" name="fields" value="${f.name}" ${checked(view.fields.includes(f.name))} /> ${labelOf(f)}${f.unit ? html` <span class="unit">${f.unit}</span>` : ""}</label>`)}
    </fieldset>
    <button type="submit">Show</button>
  </form>`;
}

function requests(page: ExplorePage): Html {
  const path = page.view.dataset.path;
  const query = page.query.toString();
  const own = `${EXPLORE_DOWNLOAD}?${viewUrl(page.view).split("?")[1]}`;
  const formats = (page.view.dataset.formats ?? ["json", "csv", "parquet"]).filter((f) => f !== "json");
  const key = page.keyPrefix === null ? "make a key under API keys" : `your key ${page.keyPrefix}…`;
  const curl = `curl -H "X-API-KEY: $GDS_KEY" "${page.baseUrl}${path}?${query}"`;
  // Each value as a string literal Python reads as written (JSON's are).
  const text = JSON.stringify;
  const issued = page.view.preset === "issued";
  const args = [
    ...(issued ? [] : [text(page.view.dataset.id), text(page.view.start), text(page.view.end)]),
    `interval=${text(page.view.interval)}`,
  ];
  if (page.query.has("tz")) args.push(`tz=${text(page.view.tz)}`);
  if (page.query.has("columns")) args.push(`columns=${text(page.view.fields)}`);
  if (page.view.asOf !== undefined) args.push(`as_of=${text(page.view.asOf)}`);
  if (page.query.has("issues")) args.push(`issues="all"`);
  const call = issued ? "outlook" : "get";
  const python = `from gridsa import Client  # pip install ./clients/python; GDS_URL=${page.baseUrl}, GDS_KEY=${key}\ndf = Client().${call}(${args.join(", ")})`;
  return html`<section class="requests" aria-label="This view as a request">
    <p class="downloads">
      Download what is shown:
      ${formats.map((f) => html`<a class="download" href="${`${own}&format=${f}`}" download>${f.toUpperCase()}</a> `)}
      <a href="${`${own}&format=json`}">JSON</a>
    </p>
    <p>The same request with your key (${key}):</p>
    <pre id="as-curl">${curl}</pre>
    <button type="button" data-copy="as-curl" hidden>Copy</button>
    <pre id="as-python">${python}</pre>
    <button type="button" data-copy="as-python" hidden>Copy</button>
  </section>`;
}

/** The explorer page. */
export function explorePage(page: ExplorePage): string {
  const { view } = page;
  const body = html`<h1>${view.dataset.title}</h1>
    ${page.sample ? html`<p class="notice sample" role="status">Sample data: generated by this service, not Eskom's.</p>` : ""}
    ${view.notes.map((n) => html`<p class="notice" role="status">${n}</p>`)}
    ${page.empty === undefined ? "" : html`<p class="notice ${page.empty.kind === "refused" ? "error" : "empty"}" role="${page.empty.kind === "refused" ? "alert" : "status"}">${page.empty.text}</p>`}
    <div class="charts" data-tz="${view.tz}" data-offset="${ZONE_OFFSET_MS[view.tz]}">${page.charts}</div>
    <p id="hover" class="hover" hidden></p>
    <p class="lede">${view.dataset.description}</p>
    ${form(page)}
    ${
      page.table === undefined
        ? ""
        : html`<details class="table">
            <summary>Show as table</summary>
            ${page.table}
          </details>`
    }
    ${
      // A request the API refused is not offered to copy: only what it accepted, as it read it.
      page.empty?.kind === "refused" ? "" : requests(page)
    }`;
  return layout({
    title: `Explore: ${view.dataset.title}`,
    viewer: page.viewer,
    current: "explore",
    body,
    scripts: ["/dashboard/assets/explore.js"],
  });
}
