/**
 * The dashboard's time charts (the explorer's, the home page's), drawn on the server as SVG (no
 * script: they show with JavaScript off and under a strict CSP): lines on one value axis with its
 * unit, or areas stacked from zero, with shaded bands behind (the grid-stress bands) or the area
 * between two lines shaded (the supply margin), and a time axis whose ticks suit the span, written
 * in the view's zone. The drawing carries its plot area and time span as data attributes, so the
 * page's script can find the record under the pointer.
 */
import { formatZoned, ZONE_OFFSET_MS, type Zone } from "../../periods.ts";
import { DAY_MS, HOUR_MS } from "../../time.ts";
import { html, type Html } from "../html.ts";
import { betweenAreas, fixed, line, type Series, type Shade, stackedAreas } from "./chart-shapes.ts";

export type { Series } from "./chart-shapes.ts";

export const WIDTH = 960;
export const HEIGHT = 360;
const PAD = { left: 64, right: 16, top: 28, bottom: 40 };

/** A shaded band of values behind the series. */
export interface Band {
  readonly from: number;
  readonly to: number;
  readonly cls: string;
  readonly label: string;
}

export interface TimeChart {
  readonly title: string;
  readonly unit: string;
  readonly tz: Zone;
  readonly series: readonly Series[];
  readonly stacked?: boolean;
  readonly bands?: readonly Band[];
  /** The time span drawn, when not that of the points. */
  readonly domain?: { readonly from: number; readonly to: number };
  /**
   * The area between the first two series shaded, where both have a value: `above` where the
   * first is over the second, `below` where it is under (each a class and a legend's words).
   */
  readonly between?: { readonly above: Shade; readonly below: Shade };
}

// A date centred on its tick, unless that would put it past the right edge of the drawing, or
// into the value axis' labels on the left (at a phone's larger text too).
const anchor = (x: number) => (x + 48 > WIDTH ? "end" : x - 48 < PAD.left ? "start" : "middle");

/** A value axis label, short: thousands as `k` (`30k`, `2.5k`), small values to their step's digits. */
export function axisLabel(v: number, step: number): string {
  if (Math.abs(v) < step / 1e6) return "0";
  if (Math.abs(v) >= 1000) return `${(v / 1000).toLocaleString("en", { maximumFractionDigits: 1 })}k`;
  return v.toLocaleString("en", { maximumFractionDigits: 3 });
}

/** A round step for about `count` gridlines over `span`. */
export function niceStep(span: number, count = 5): number {
  const raw = Math.max(span, 1e-9) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
}

/** The ticks of a time span: every 6 hours, day, week, month or year, by its length. */
export function timeTicks(from: number, to: number, tz: Zone): { at: number; label: string }[] {
  const offset = ZONE_OFFSET_MS[tz];
  const days = (to - from) / DAY_MS;
  const local = (ms: number) => new Date(ms + offset);
  const out: { at: number; label: string }[] = [];
  const month = (d: Date) => d.toLocaleDateString("en-GB", { month: "short", timeZone: "UTC" });
  if (days <= 3) {
    for (
      let t = Math.ceil((from + offset) / (6 * HOUR_MS)) * 6 * HOUR_MS - offset;
      t <= to;
      t += 6 * HOUR_MS
    ) {
      const d = local(t);
      out.push({
        at: t,
        label:
          d.getUTCHours() === 0
            ? `${d.getUTCDate()} ${month(d)}`
            : `${String(d.getUTCHours()).padStart(2, "0")}:00`,
      });
    }
  } else if (days <= 62) {
    const step = days <= 16 ? 1 : 7;
    for (let t = Math.ceil((from + offset) / DAY_MS) * DAY_MS - offset; t <= to; t += DAY_MS) {
      const d = local(t);
      if (step === 7 && d.getUTCDay() !== 1) continue;
      out.push({ at: t, label: `${d.getUTCDate()} ${month(d)}` });
    }
  } else {
    const start = local(from);
    const byYear = days > 3 * 366;
    for (let y = start.getUTCFullYear(), m = byYear ? 0 : start.getUTCMonth(); ; m += byYear ? 12 : 1) {
      const t = Date.UTC(y, m, 1) - offset;
      if (t > to) break;
      if (t >= from) {
        const d = local(t);
        const label = byYear || d.getUTCMonth() === 0 ? String(d.getUTCFullYear()) : month(d);
        if (byYear || days <= 2 * 366 || d.getUTCMonth() % 3 === 0) out.push({ at: t, label });
      }
    }
  }
  return out;
}

function extent(chart: TimeChart): { lo: number; hi: number } {
  let lo = 0;
  let hi = 0;
  const tops = new Map<number, number>();
  for (const s of chart.series) {
    for (const [t, v] of s.points) {
      if (v === null) continue;
      if (chart.stacked) tops.set(t, (tops.get(t) ?? 0) + Math.max(0, v));
      else [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
    }
  }
  if (chart.stacked) hi = Math.max(0, ...tops.values());
  for (const band of chart.bands ?? []) hi = Math.max(hi, Math.min(band.to, 1));
  return { lo, hi: hi === lo ? lo + 1 : hi };
}

// Horizontal grid lines from `lo` to `hi`, each with its short label.
function gridLines(lo: number, hi: number, step: number, y: (v: number) => number): Html[] {
  const grid: Html[] = [];
  for (let v = lo; v <= hi + step / 2; v += step) {
    const label = axisLabel(v, step);
    grid.push(
      html`<line
          class="grid"
          x1="${PAD.left}"
          x2="${WIDTH - PAD.right}"
          y1="${fixed(y(v))}"
          y2="${fixed(y(v))}"
        /><text
          class="axis"
          x="${PAD.left - 6}"
          y="${fixed(y(v))}"
          text-anchor="end"
          dominant-baseline="central"
          >${label}</text
        >`,
    );
  }
  return grid;
}

// The shaded bands, each clipped to the axis' top.
function bandRects(list: readonly Band[], y: (v: number) => number, yHi: number): Html[] {
  const innerW = WIDTH - PAD.left - PAD.right;
  return list.map(
    (b) =>
      html`<rect
        class="band ${b.cls}"
        x="${PAD.left}"
        width="${innerW}"
        y="${fixed(y(Math.min(b.to, yHi)))}"
        height="${fixed(Math.max(0, y(b.from) - y(Math.min(b.to, yHi))))}"
        ><title>${b.label}</title></rect
      >`,
  );
}

/** The SVG of a chart (with its legend), or undefined when it has no point to draw. */
export function timeChart(chart: TimeChart): Html | undefined {
  const times = chart.series.flatMap((s) => s.points.map(([t]) => t));
  if (times.length === 0) return undefined;
  const from = chart.domain?.from ?? Math.min(...times);
  const to = chart.domain?.to ?? Math.max(...times);
  const span = Math.max(to - from, HOUR_MS);
  const { lo, hi } = extent(chart);
  const step = niceStep(hi - lo);
  const yLo = Math.floor(lo / step) * step;
  const yHi = Math.ceil(hi / step) * step;
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (t: number) => PAD.left + ((t - from) / span) * innerW;
  const y = (v: number) => PAD.top + innerH - ((v - yLo) / (yHi - yLo)) * innerH;
  const grid = gridLines(yLo, yHi, step, y);
  const ticks = timeTicks(from, to, chart.tz).map(
    ({ at, label }) =>
      html`<line
          class="tick"
          x1="${fixed(x(at))}"
          x2="${fixed(x(at))}"
          y1="${PAD.top}"
          y2="${HEIGHT - PAD.bottom}"
        /><text class="axis" x="${fixed(x(at))}" y="${HEIGHT - 12}" text-anchor="${anchor(x(at))}"
          >${label}</text
        >`,
  );
  const bands = bandRects(chart.bands ?? [], y, yHi);
  const shaded = chart.between === undefined ? [] : betweenAreas(chart.series, chart.between, x, y);
  const drawn = chart.stacked ? stackedAreas(chart.series, x, y) : chart.series.map((s) => line(s, x, y));
  const first = formatZoned(from, ZONE_OFFSET_MS[chart.tz]);
  const last = formatZoned(to, ZONE_OFFSET_MS[chart.tz]);
  return html`<figure class="explore-chart">
    <svg
      class="chart"
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-label="${chart.title}, ${chart.unit}, ${first} to ${last}"
      data-x0="${PAD.left}"
      data-x1="${WIDTH - PAD.right}"
      data-t0="${from}"
      data-t1="${from + span}"
    >
      <text class="unit" x="${PAD.left}" y="${PAD.top - 10}">${chart.unit}</text>
      ${bands}${grid}${ticks}${shaded.map((s) => s.html)}${drawn}
    </svg>
    <figcaption>
      <strong>${chart.title}</strong> (${chart.unit}), ${first} to ${last}
      <ul class="legend">
        ${chart.series.map((s) => html`<li><span class="swatch ${s.cls}"></span>${s.label}</li>`)}
        ${(chart.bands ?? []).map((b) => html`<li><span class="swatch band ${b.cls}"></span>${b.label}</li>`)}
        ${[...new Map(shaded.map((s) => [s.band.cls, s.band])).values()].map((b) => html`<li><span class="swatch ${b.cls}"></span>${b.label}</li>`)}
      </ul>
    </figcaption>
  </figure>`;
}
