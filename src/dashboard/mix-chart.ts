/**
 * The home page's chart: hourly generation by fuel as a stacked area, drawn on the server as SVG
 * (no script, so it shows with JavaScript off and passes a strict CSP). Colours come from CSS
 * classes, so the chart follows the page's stylesheet.
 */
import { html, type Html } from "./html.ts";

/** The fuels in stacking order, bottom first: baseload, then dispatchable, then renewables. */
export const CHART_FUELS = [
  { field: "nuclear_mw", label: "Nuclear" },
  { field: "thermal_mw", label: "Coal" },
  { field: "utility_gas_mw", label: "Gas" },
  { field: "utility_ocgt_mw", label: "OCGT (diesel)" },
  { field: "hydro_water_mw", label: "Hydro" },
  { field: "pumped_water_gen_mw", label: "Pumped storage" },
  { field: "wind_mw", label: "Wind" },
  { field: "pv_mw", label: "Solar PV" },
  { field: "csp_mw", label: "CSP" },
  { field: "other_re_mw", label: "Other renewables" },
] as const;

/** One hour of generation: its start (UTC ms) and MW by field (null counts as 0). */
export interface MixHour {
  readonly hour: number;
  readonly mw: Readonly<Record<string, number | null>>;
}

const WIDTH = 720;
const HEIGHT = 300;
/**
 * Room for the axis labels at their largest: the stylesheet draws them at 24 units on a phone,
 * where the drawing is shrunk (12 on a desktop). Above the top gridline, the upper half of its GW
 * label; under the plot, the lower half of "0" and the dates; left of it, the widest GW label.
 */
const LABEL = 24;
const PAD = { left: 48, right: 12, top: LABEL * 0.7, bottom: LABEL * 2 };

// A round step for about five gridlines.
function niceStep(max: number): number {
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
}

const fixed = (n: number) => n.toFixed(1);

/** Where values land in the drawing: x for an instant, y for a MW total. */
interface Scale {
  readonly x: (t: number) => number;
  readonly y: (v: number) => number;
  readonly yMax: number;
  readonly step: number;
}

// One polygon per fuel, each stacked on the ones before it.
function areas(hours: readonly MixHour[], scale: Scale, layers: ReturnType<typeof stack>["layers"]): Html[] {
  const { x, y } = scale;
  return layers.map(({ field, bottom, top }) => {
    const upper = hours.map((h, i) => `${fixed(x(h.hour))},${fixed(y(top[i]!))}`);
    const lower = hours.map((h, i) => `${fixed(x(h.hour))},${fixed(y(bottom[i]!))}`).reverse();
    return html`<polygon class="fuel-${field}" points="${[...upper, ...lower].join(" ")}"
      ><title>${CHART_FUELS.find((f) => f.field === field)!.label}</title></polygon
    >`;
  });
}

// Horizontal grid lines with their GW labels.
function gridLines({ y, yMax, step }: Scale): Html[] {
  const grid = [];
  for (let v = 0; v <= yMax; v += step) {
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
          >${(v / 1000).toLocaleString("en", { maximumFractionDigits: 1 })}</text
        >`,
    );
  }
  return grid;
}

// A date centred on its tick, unless that would put it past the right edge (the midnight of a
// day pulled a few hours in); on the left, the GW labels' room holds half a date.
const anchor = (x: number) => (x + LABEL * 1.7 > WIDTH ? "end" : "middle");

// A tick and a date at each UTC midnight in [first, last].
function dayTicks(first: number, last: number, { x }: Scale): Html[] {
  const days = [];
  for (let t = Math.ceil(first / 86_400_000) * 86_400_000; t <= last; t += 86_400_000) {
    const label = new Date(t).toLocaleDateString("en-GB", {
      day: "numeric",
      month: "short",
      timeZone: "UTC",
    });
    days.push(
      html`<line
          class="tick"
          x1="${fixed(x(t))}"
          x2="${fixed(x(t))}"
          y1="${PAD.top}"
          y2="${HEIGHT - PAD.bottom}"
        /><text class="axis" x="${fixed(x(t))}" y="${HEIGHT - 8}" text-anchor="${anchor(x(t))}"
          >${label}</text
        >`,
    );
  }
  return days;
}

// The cumulative layers, bottom fuel first, and the stack's top per hour.
function stack(hours: readonly MixHour[]) {
  const tops = hours.map(() => 0);
  const layers = CHART_FUELS.map(({ field }) => {
    const bottom = [...tops];
    hours.forEach((h, i) => (tops[i]! += Math.max(0, h.mw[field] ?? 0)));
    return { field, bottom, top: [...tops] };
  });
  return { layers, tops };
}

/** The SVG of a stacked area over `hours` (ascending), with axes in GW and one tick per UTC day. */
export function mixChart(hours: readonly MixHour[]): Html {
  if (hours.length < 2) return html`<p class="empty">Not enough stored hours to draw a chart yet.</p>`;
  const first = hours[0]!.hour;
  const last = hours[hours.length - 1]!.hour;
  const { layers, tops } = stack(hours);
  const step = niceStep(Math.max(...tops, 1));
  const yMax = Math.ceil(Math.max(...tops, 1) / step) * step;
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const scale: Scale = {
    x: (t) => PAD.left + ((t - first) / (last - first)) * innerW,
    y: (v) => PAD.top + innerH - (v / yMax) * innerH,
    yMax,
    step,
  };
  const from = new Date(first).toISOString().slice(0, 13);
  const to = new Date(last).toISOString().slice(0, 13);
  return html`<svg
      class="chart"
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-labelledby="chart-title chart-desc"
    >
      <title id="chart-title">Generation by fuel, GW, stacked</title>
      <desc id="chart-desc">
        Hourly generation by fuel from ${from}:00 to ${to}:00 UTC, stacked from nuclear at the bottom to other
        renewables at the top; the vertical axis is in gigawatts.
      </desc>
      ${gridLines(scale)}${areas(hours, scale, layers)}${dayTicks(first, last, scale)}
    </svg>
    <ul class="legend">
      ${CHART_FUELS.map((f) => html`<li><span class="swatch fuel-${f.field}"></span>${f.label}</li>`)}
    </ul>`;
}
