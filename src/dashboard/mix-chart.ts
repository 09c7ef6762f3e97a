/**
 * The home page's chart: hourly generation by fuel as a stacked area, drawn on the server as SVG
 * (no script, so it shows with JavaScript off and passes a strict CSP). Colours come from CSS
 * classes, so the chart follows the page's stylesheet.
 */
import { html, type Html } from "./html.ts";
import { dayTicks, fixed, gridLines, HEIGHT, type Scale, timeScale, WIDTH } from "./chart-axes.ts";

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
  const scale = timeScale(first, last, Math.max(...tops));
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
