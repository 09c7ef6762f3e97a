/**
 * The explorer's view, read from its URL (docs/dashboard.md: "The explorer"): which dataset, which
 * fields, which range (the last day, week, month or year of the data, or from/to), the interval,
 * `tz`, `as_of`, and for the forecast which issues. Every choice is a query parameter, so a view is
 * a link; what cannot be drawn light (too many points) is drawn at a coarser interval, and said.
 */
import type { DatasetDefinition } from "../../datasets/registry.ts";
import { type DatasetDoc, type FieldDoc, intervalsOf } from "../../records/dataset.ts";
import { localDay, ZONE_OFFSET_MS, type Zone, ZONES } from "../../periods.ts";
import { parseInstant } from "../../http/instant.ts";
import { DAY_MS, formatInstant } from "../../time.ts";

/** Where a view's records are downloaded, as the API answers them (`format` csv, parquet or json). */
export const EXPLORE_DOWNLOAD = "/dashboard/explore/download";

/** The ranges offered, in days back from the newest data (the forecast's: ahead). */
export const PRESETS = { day: 1, week: 7, month: 31, year: 366 } as const;
/** `issued`: a dataset asked for without a range (the outlook), its hours its issue's. */
export type Preset = keyof typeof PRESETS | "custom" | "issued";

/** The most points one chart draws: more, and the view is drawn at a coarser interval. */
export const MAX_POINTS = 4_000;

// A forecast's range runs ahead of the newest data, and its issues may be overlaid.
const isForecast = (dataset: DatasetDefinition) => dataset.kind === "issues";

/** One view. */
export interface ExploreView {
  readonly dataset: DatasetDefinition;
  readonly preset: Preset;
  /** The range, `YYYY-MM-DD` in `tz` (a bare date, as the API reads it). */
  readonly start: string;
  readonly end: string;
  readonly interval: string;
  readonly tz: Zone;
  /** The fields asked for (`columns`), in the dataset's order; all when empty. */
  readonly fields: readonly string[];
  /** `as_of`, as the API writes an instant. */
  readonly asOf?: string;
  /** An `as_of` that is no instant, as it came: sent to the API only, whose answer says why not. */
  readonly asOfRefused?: string;
  /** The forecast's issues: `all` overlays each issue. */
  readonly issues?: "latest" | "all";
  /** What was changed from the request, for the reader. */
  readonly notes: readonly string[];
}

const HOURS = (interval: string) =>
  ({ "1h": 1, "1d": 24, "1w": 168, "1mo": 730, "1y": 8766, fy: 8766 })[interval] ?? 24;

/** The fields a chart can draw at an interval: numbers and objects' members, not counts or labels. */
export function chartFields(dataset: DatasetDoc, interval: string): readonly FieldDoc[] {
  const fields = dataset.fields[interval === "1h" ? "1h" : "1d"];
  return fields.slice(1).filter((f) => f.type === "number" && f.unit !== undefined);
}

// The interval a span draws light at, among those the dataset serves.
function autoInterval(dataset: DatasetDoc, days: number): string {
  const served: readonly string[] = intervalsOf(dataset);
  const wanted = days <= 62 ? "1h" : days <= 3 * 366 ? "1d" : "1w";
  return served.includes(wanted) ? wanted : served[0]!;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

// `as_of` as the API writes an instant (`2025-06-02T12:00:00+00:00`); a text that is none is kept
// apart, for the API to refuse in its words, and no link, field or snippet of the page repeats it.
function asOfOf(text: string): { asOf?: string; asOfRefused?: string } {
  if (text === "") return {};
  const instant = parseInstant(text);
  return typeof instant === "object"
    ? { asOf: formatInstant(instant.ms, instant.fractional) }
    : { asOfRefused: text };
}

/**
 * The view a query asks for. `newest` is the newest hour of data (UTC ms) the presets end at;
 * anything not understood falls back to a default, with a note.
 */
export function readView(
  params: URLSearchParams,
  datasets: readonly DatasetDefinition[],
  newest: number,
): ExploreView {
  const notes: string[] = [];
  const dataset = datasets.find((d) => d.id === params.get("dataset")) ?? datasets[0]!;
  if (dataset.unranged === true) return issuedView(params, dataset);
  const zone = (ZONES as readonly string[]).includes(params.get("tz") ?? "")
    ? (params.get("tz") as Zone)
    : "UTC";
  // A dataset without `tz` (the forecast) answers in UTC: its view is in UTC.
  const tz = (dataset.takes ?? ["tz"]).includes("tz") ? zone : "UTC";
  if (tz !== zone) notes.push(`${dataset.id} is served in UTC only: shown in UTC.`);
  const range = params.get("range") ?? "week";
  const preset = range in PRESETS || range === "custom" ? (range as keyof typeof PRESETS | "custom") : "week";
  let start = params.get("start") ?? "";
  let end = params.get("end") ?? "";
  if (preset !== "custom" || !DATE.test(start) || !DATE.test(end) || end <= start) {
    if (preset === "custom")
      notes.push("The range needs a start and a later end (YYYY-MM-DD): showing the last week.");
    const days = PRESETS[preset === "custom" ? "week" : preset];
    const anchor = Date.parse(`${localDay(newest, ZONE_OFFSET_MS[tz])}T00:00:00Z`) + DAY_MS;
    // The forecast's range runs ahead from the newest data's day; every other ends after it.
    const [from, to] = isForecast(dataset)
      ? [anchor - DAY_MS, anchor - DAY_MS + days * DAY_MS]
      : [anchor - days * DAY_MS, anchor];
    start = new Date(from).toISOString().slice(0, 10);
    end = new Date(to).toISOString().slice(0, 10);
  }
  const days = (Date.parse(end) - Date.parse(start)) / DAY_MS;
  const served: readonly string[] = intervalsOf(dataset);
  let interval = params.get("interval") ?? "";
  if (!served.includes(interval)) interval = autoInterval(dataset, days);
  else if ((days * 24) / HOURS(interval) > MAX_POINTS) {
    const coarser = autoInterval(dataset, days);
    notes.push(
      `${Math.round((days * 24) / HOURS(interval))} points at ${interval} are too many to draw: drawn at ${coarser}.`,
    );
    interval = coarser;
  }
  const known = new Set(dataset.fields[interval === "1h" ? "1h" : "1d"].map((f) => f.name));
  const fields = params.getAll("fields").filter((name) => known.has(name));

  const issues = isForecast(dataset) ? (params.get("issues") === "latest" ? "latest" : "all") : undefined;
  return {
    dataset,
    preset,
    start,
    end,
    interval,
    tz,
    fields,
    ...asOfOf(params.get("as_of") ?? ""),
    ...(issues === undefined ? {} : { issues }),
    notes,
  };
}

/**
 * The view of a dataset asked for without a range (the outlook): issued now or `as_of`, per hour
 * or per day, in SAST unless UTC is asked for.
 */
function issuedView(params: URLSearchParams, dataset: DatasetDefinition): ExploreView {
  const tz: Zone = params.get("tz") === "UTC" ? "UTC" : "Africa/Johannesburg";
  const interval = params.get("interval") === "1d" ? "1d" : "1h";
  const known = new Set(dataset.fields[interval].map((f) => f.name));
  const fields = params.getAll("fields").filter((name) => known.has(name));
  return {
    dataset,
    preset: "issued",
    start: "",
    end: "",
    interval,
    tz,
    fields,
    ...asOfOf(params.get("as_of") ?? ""),
    notes: [],
  };
}

/** The API query of a view: the parameters its data request sends (`format` aside). */
export function apiQuery(view: ExploreView): URLSearchParams {
  const ranged = view.dataset.unranged !== true;
  const query = new URLSearchParams(ranged ? { start: view.start, end: view.end } : {});
  const takes = view.dataset.takes ?? ["tz", "agg", "columns"];
  if (view.interval !== (view.dataset.intervals?.[0] ?? "1h")) query.set("interval", view.interval);
  if ((view.tz !== "UTC" || !ranged) && takes.includes("tz")) query.set("tz", view.tz);
  if (view.fields.length > 0 && takes.includes("columns")) query.set("columns", view.fields.join(","));
  const asOf = view.asOf ?? view.asOfRefused;
  if (asOf !== undefined) query.set("as_of", asOf);
  if (view.issues === "all" && view.interval === "1h") query.set("issues", "all");
  return query;
}

/** The explorer's own URL of a view (its state), with `changes` applied. */
export function viewUrl(view: ExploreView, changes: Readonly<Record<string, string>> = {}): string {
  const params = new URLSearchParams({
    dataset: view.dataset.id,
    ...(view.preset === "issued" ? {} : { range: view.preset }),
    ...(view.preset === "custom" ? { start: view.start, end: view.end } : {}),
    interval: view.interval,
    tz: view.tz,
    ...(view.asOf === undefined ? {} : { as_of: view.asOf }),
    ...(view.issues === undefined ? {} : { issues: view.issues }),
  });
  for (const field of view.fields) params.append("fields", field);
  for (const [name, value] of Object.entries(changes)) params.set(name, value);
  return `/dashboard/explore?${params.toString()}`;
}
