/**
 * The charts of a view, as each dataset's definition asks (`ChartSpec`, docs/dashboard.md: "The
 * explorer"): areas stacked in its order (generation by fuel); a forecast's issues each a line over
 * the same target hours, the newest on top; a heatmap of hour of day by day for the field whose
 * pattern over the day is the story, at 1h; every other field as lines, one chart per unit, over
 * the dataset's shaded bands where it has them. Fields are named by their labels, with units.
 */
import type { DataRecord, FieldDoc } from "../../records/dataset.ts";
import { formatZoned, ZONE_OFFSET_MS } from "../../periods.ts";
import type { Html } from "../html.ts";
import { chartFields, type ExploreView } from "./explore-view.ts";
import { heatmap } from "./heatmap.ts";
import { type Band, type Series, timeChart } from "./time-chart.ts";

/** How many line colours the stylesheet has (`series-0` ...), Okabe and Ito's colour-blind-safe set. */
const COLOURS = 8;

/** The instant a record stands for: its hour, or 00:00 of its period's first day in the view's zone. */
export function instantOf(view: ExploreView, record: DataRecord): number {
  if (typeof record.ts === "string") return Date.parse(record.ts);
  return Date.parse(`${record.date as string}T00:00:00Z`) - ZONE_OFFSET_MS[view.tz];
}

/** A field as people read it: its label, else its name. */
export const labelOf = (field: FieldDoc): string => field.label ?? field.name;

const valueOf = (record: DataRecord, name: string): number | null => {
  const value = record[name];
  return typeof value === "number" ? value : null;
};

function seriesOf(
  view: ExploreView,
  records: readonly DataRecord[],
  field: FieldDoc,
  cls: string,
  label = labelOf(field),
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

// The dataset's bands behind a unit's lines, if it has them.
function bandsOf(view: ExploreView, unit: string): Band[] | undefined {
  const spec = view.dataset.chart.bands;
  if (spec === undefined || spec.unit !== unit) return undefined;
  return spec.bands.map((b) => ({ ...b, cls: `band-${b.name}`, label: `${b.name} (from ${b.from})` }));
}

// The stacked fields, bottom first, each its own colour (`fuel-<hourly name>` for the mix's).
function stackedChart(
  view: ExploreView,
  records: readonly DataRecord[],
  fields: readonly FieldDoc[],
): Html[] {
  const byName = new Map(fields.map((f) => [f.name, f]));
  const series = (view.dataset.chart.order ?? []).flatMap((name, i) => {
    const f = byName.get(name) ?? byName.get(`avg_${name}`);
    return f === undefined ? [] : [seriesOf(view, records, f, `fuel-${name} series-${i % COLOURS}`)];
  });
  const chart = timeChart({
    title: `${view.dataset.title}, stacked`,
    unit: series.length > 0 ? fields[0]!.unit! : "",
    tz: view.tz,
    series,
    stacked: true,
  });
  return chart === undefined ? [] : [chart];
}

// Each issue of a forecast a line over the same target hours; the newest drawn last, on top.
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
  const chart = timeChart({ title: `${labelOf(field)}, each issue`, unit: field.unit!, tz: view.tz, series });
  return chart === undefined ? [] : [chart];
}

/** What happened in an outlook's hours or days, drawn over its chances: 1 where load was reduced. */
export interface Outcome {
  readonly label: string;
  readonly points: readonly (readonly [number, number | null])[];
}

// One chart of lines per unit, in the order the fields come; an outcome over the probabilities.
function linesByUnit(
  view: ExploreView,
  records: readonly DataRecord[],
  fields: readonly FieldDoc[],
  outcome?: Outcome,
): Html[] {
  const units = [...new Set(fields.map((f) => f.unit!))];
  return units.flatMap((unit) => {
    // A field with no value in the range is left out of its chart and its legend.
    const of = fields.filter((f) => f.unit === unit && records.some((r) => valueOf(r, f.name) !== null));
    if (of.length === 0) return [];
    const series = of.map((f, i) => seriesOf(view, records, f, `series-${i % COLOURS}`));
    if (unit === "probability" && outcome !== undefined && outcome.points.some(([, v]) => v !== null))
      series.push({ ...outcome, cls: `outcome series-${series.length % COLOURS}` });
    const bands = bandsOf(view, unit);
    const title = of.length === 1 ? labelOf(of[0]!) : `${view.dataset.title}: ${of.length} fields`;
    const chart = timeChart({ title, unit, tz: view.tz, series, ...(bands ? { bands } : {}) });
    return chart === undefined ? [] : [chart];
  });
}

// Hour of day by day, for the field whose pattern over the day is the story.
function heatmaps(view: ExploreView, records: readonly DataRecord[], fields: readonly FieldDoc[]): Html[] {
  if (view.interval !== "1h") return [];
  const field = fields.find((f) => f.name === view.dataset.chart.heatmap);
  if (field === undefined) return [];
  const map = heatmap({
    title: `${labelOf(field)} by hour`,
    unit: field.unit!,
    tz: view.tz,
    points: records.map((r) => [instantOf(view, r), valueOf(r, field.name)] as const),
    ...(field.maximum === undefined ? {} : { max: field.maximum }),
  });
  return map === undefined ? [] : [map];
}

/** The charts of a view's records (with what then happened, for an outlook); empty when there is nothing to draw. */
export function viewCharts(view: ExploreView, records: readonly DataRecord[], outcome?: Outcome): Html[] {
  const fields = drawn(view, records);
  if (records.length === 0 || fields.length === 0) return [];
  const { kind } = view.dataset.chart;
  if (kind === "stacked") return stackedChart(view, records, fields);
  if (kind === "issues" && records.some((r) => r.issued_at !== records[0]!.issued_at)) {
    return [
      ...issuesChart(view, records, fields[0]!),
      ...linesByUnit(
        view,
        records.filter((r, i, all) => i === all.length - 1 || r.ts !== all[i + 1]!.ts),
        fields,
      ),
    ];
  }
  return [...heatmaps(view, records, fields), ...linesByUnit(view, records, fields, outcome)];
}
