/**
 * The charts that fit each dataset (docs/dashboard.md: "The explorer"): generation as areas
 * stacked by fuel; grid stress as a line over its shaded bands; Eskom's forecast with each issue a
 * line over the same target hours, the newest on top; a heatmap of hour of day by day for load
 * reduction and grid stress at 1h; every other field as lines, one chart per unit.
 */
import type { DataRecord, FieldDoc } from "../../datasets/dataset.ts";
import { STRESS_BANDS } from "../../features/stress-formula.ts";
import { formatZoned, ZONE_OFFSET_MS } from "../../periods.ts";
import type { Html } from "../html.ts";
import { CHART_FUELS } from "../mix-chart.ts";
import { chartFields, type ExploreView, FORECAST_ID } from "./explore-view.ts";
import { heatmap } from "./heatmap.ts";
import { type Band, type Series, timeChart } from "./time-chart.ts";

const MIX = "generation.mix";
const STRESS = "features.grid_stress_index";
const LOAD_REDUCTION = "grid.load_reduction";
/** How many line colours the stylesheet has (`series-0` ...), Okabe and Ito's colour-blind-safe set. */
const COLOURS = 8;

/** The instant a record stands for: its hour, or 00:00 of its period's first day in the view's zone. */
export function instantOf(view: ExploreView, record: DataRecord): number {
  if (typeof record.ts === "string") return Date.parse(record.ts);
  return Date.parse(`${record.date as string}T00:00:00Z`) - ZONE_OFFSET_MS[view.tz];
}

const valueOf = (record: DataRecord, name: string): number | null => {
  const value = record[name];
  return typeof value === "number" ? value : null;
};

function seriesOf(
  view: ExploreView,
  records: readonly DataRecord[],
  field: FieldDoc,
  cls: string,
  label = field.name,
): Series {
  return { label, cls, points: records.map((r) => [instantOf(view, r), valueOf(r, field.name)] as const) };
}

// The fields drawn: those asked for (or all) that the records carry.
function drawn(view: ExploreView, records: readonly DataRecord[]): FieldDoc[] {
  const carried = new Set(records.length > 0 ? Object.keys(records[0]!) : []);
  return chartFields(view.dataset, view.interval).filter(
    (f) => carried.has(f.name) && (view.fields.length === 0 || view.fields.includes(f.name)),
  );
}

const STRESS_BAND_SHADES: readonly Band[] = STRESS_BANDS.map(([name, from], i) => ({
  from,
  to: STRESS_BANDS[i + 1]?.[1] ?? 1,
  cls: `band-${name}`,
  label: `${name} (from ${from})`,
}));

// Generation stacked by fuel, bottom first, in the home page's colours.
function mixChart(view: ExploreView, records: readonly DataRecord[], fields: readonly FieldDoc[]): Html[] {
  const byName = new Map(fields.map((f) => [f.name, f]));
  const series = CHART_FUELS.flatMap(({ field, label }) => {
    const f = byName.get(field) ?? byName.get(`avg_${field}`);
    return f === undefined ? [] : [seriesOf(view, records, f, `fuel-${field}`, label)];
  });
  const chart = timeChart({
    title: "Generation by fuel, stacked",
    unit: "MW",
    tz: view.tz,
    series,
    stacked: true,
  });
  return chart === undefined ? [] : [chart];
}

// Each issue of the forecast a line over the same target hours; the newest drawn last, on top.
function issuesChart(view: ExploreView, records: readonly DataRecord[], field: FieldDoc): Html[] {
  const issues = [...new Set(records.map((r) => r.issued_at as string))].sort();
  const series = issues.map((issued, i) => {
    const newest = i === issues.length - 1;
    const of = records.filter((r) => r.issued_at === issued);
    const label = `issued ${formatZoned(Date.parse(issued), 0).slice(0, 16).replace("T", " ")} UTC`;
    return seriesOf(
      view,
      of,
      field,
      newest ? "issue-newest" : `issue-old issue-age-${Math.min(3, issues.length - 1 - i)}`,
      label,
    );
  });
  const chart = timeChart({ title: `${field.name}, each issue`, unit: field.unit!, tz: view.tz, series });
  return chart === undefined ? [] : [chart];
}

// One chart of lines per unit, in the order the fields come.
function linesByUnit(view: ExploreView, records: readonly DataRecord[], fields: readonly FieldDoc[]): Html[] {
  const units = [...new Set(fields.map((f) => f.unit!))];
  return units.flatMap((unit) => {
    const of = fields.filter((f) => f.unit === unit);
    const series = of.map((f, i) => seriesOf(view, records, f, `series-${i % COLOURS}`));
    const bands = view.dataset.id === STRESS && unit === "index" ? STRESS_BAND_SHADES : undefined;
    const title = `${view.dataset.id}: ${of.length === 1 ? of[0]!.name : `${of.length} fields`}`;
    const chart = timeChart({ title, unit, tz: view.tz, series, ...(bands ? { bands } : {}) });
    return chart === undefined ? [] : [chart];
  });
}

// Hour of day by day, for the fields whose pattern over the day is the story.
function heatmaps(view: ExploreView, records: readonly DataRecord[], fields: readonly FieldDoc[]): Html[] {
  if (view.interval !== "1h") return [];
  const name =
    view.dataset.id === STRESS
      ? "value"
      : view.dataset.id === LOAD_REDUCTION
        ? "manual_load_reduction_mw"
        : undefined;
  const field = fields.find((f) => f.name === name);
  if (field === undefined) return [];
  const map = heatmap({
    title: `${field.name} by hour`,
    unit: field.unit!,
    tz: view.tz,
    points: records.map((r) => [instantOf(view, r), valueOf(r, field.name)] as const),
    ...(view.dataset.id === STRESS ? { max: 1 } : {}),
  });
  return map === undefined ? [] : [map];
}

/** The charts of a view's records; empty when there is nothing to draw. */
export function viewCharts(view: ExploreView, records: readonly DataRecord[]): Html[] {
  const fields = drawn(view, records);
  if (records.length === 0 || fields.length === 0) return [];
  if (view.dataset.id === MIX) return mixChart(view, records, fields);
  if (view.dataset.id === FORECAST_ID && records.some((r) => r.issued_at !== records[0]!.issued_at)) {
    return [
      ...issuesChart(view, records, fields[0]!),
      ...linesByUnit(
        view,
        records.filter((r, i, all) => i === all.length - 1 || r.ts !== all[i + 1]!.ts),
        fields,
      ),
    ];
  }
  return [...heatmaps(view, records, fields), ...linesByUnit(view, records, fields)];
}
