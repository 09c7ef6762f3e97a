/**
 * A heatmap of hour of day by day, as unofficialeskom draws the load-shedding stages: one column
 * per day, one row per hour (00:00 at the top) in the view's zone, each cell coloured by its value
 * in eight steps of a colour-blind-safe sequential scale (the stylesheet's `heat-0` to `heat-7`).
 */
import { formatZoned, localDay, ZONE_OFFSET_MS, type Zone } from "../../periods.ts";
import { DAY_MS, HOUR_MS } from "../../time.ts";
import { html, type Html } from "../html.ts";

const WIDTH = 960;
const HEIGHT = 360;
const PAD = { left: 84, right: 16, top: 16, bottom: 36 };
const STEPS = 8;

/** What the heatmap draws: hourly values, their unit, and the value the darkest step begins at. */
export interface Heatmap {
  readonly title: string;
  readonly unit: string;
  readonly tz: Zone;
  readonly points: readonly (readonly [number, number | null])[];
  /** The top of the scale: a fixed one (grid stress's 1), or the largest value. */
  readonly max?: number;
}

// The colour steps, each with the value it begins at.
function legend(max: number): Html[] {
  const at = (i: number) =>
    (((i - 0.5) / (STEPS - 1)) * max).toLocaleString("en", { maximumFractionDigits: 2 });
  return Array.from({ length: max > 0 ? STEPS : 1 }, (_, i) => {
    return html`<li>
      <span class="swatch heat-${i}"></span>${i === 0 ? (max > 0 ? `< ${at(1)}` : "0") : `≥ ${at(i)}`}
    </li>`;
  });
}

/** A value's colour step: the nearest of eight even steps from 0 to `max`. */
export function stepOf(value: number, max: number): number {
  if (value <= 0 || max <= 0) return 0;
  return Math.min(STEPS - 1, Math.round((value / max) * (STEPS - 1)));
}

// The hours down the left and the dates along the bottom.
function axisLabels(firstDay: number, days: number, w: number, h: number): Html[] {
  const hours = [0, 6, 12, 18].map(
    (hour) =>
      html`<text
        class="axis"
        x="${PAD.left - 6}"
        y="${(PAD.top + (hour + 0.5) * h).toFixed(1)}"
        text-anchor="end"
        dominant-baseline="central"
        >${String(hour).padStart(2, "0")}:00</text
      >`,
  );
  const every = Math.max(1, Math.ceil(days / 10));
  const dates: Html[] = [];
  for (let d = 0; d < days; d += every) {
    const label = localDay((firstDay + d) * DAY_MS, 0).slice(5);
    dates.push(
      html`<text
        class="axis"
        x="${(PAD.left + (d + 0.5) * w).toFixed(1)}"
        y="${HEIGHT - 12}"
        text-anchor="middle"
        >${label}</text
      >`,
    );
  }
  return [...hours, ...dates];
}

/** The SVG of a heatmap, or undefined when no hour has a value. */
export function heatmap(map: Heatmap): Html | undefined {
  const offset = ZONE_OFFSET_MS[map.tz];
  const cells = map.points.filter((p): p is readonly [number, number] => p[1] !== null);
  if (cells.length === 0) return undefined;
  const dayOf = (t: number) => Math.floor((t + offset) / DAY_MS);
  const firstDay = dayOf(cells[0]![0]);
  const days = dayOf(cells.at(-1)![0]) - firstDay + 1;
  const max = map.max ?? Math.max(...cells.map(([, v]) => v));
  const w = (WIDTH - PAD.left - PAD.right) / days;
  const h = (HEIGHT - PAD.top - PAD.bottom) / 24;
  const rects = cells.map(([t, v]) => {
    const step = stepOf(v, max);
    const col = dayOf(t) - firstDay;
    const row = Math.floor(((t + offset) % DAY_MS) / HOUR_MS);
    const label = `${formatZoned(t, offset)}: ${v.toLocaleString("en", { maximumFractionDigits: 3 })} ${map.unit}`;
    return html`<rect
      class="heat-${step}"
      x="${(PAD.left + col * w).toFixed(2)}"
      y="${(PAD.top + row * h).toFixed(2)}"
      width="${(w + 0.2).toFixed(2)}"
      height="${(h + 0.2).toFixed(2)}"
      ><title>${label}</title></rect
    >`;
  });
  const labels = axisLabels(firstDay, days, w, h);
  const scale = legend(max);
  return html`<figure class="explore-chart">
    <svg
      class="chart heatmap"
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-label="${map.title}, ${map.unit}, by hour of day (rows) and day (columns)"
    >
      ${rects}${labels}
    </svg>
    <figcaption>
      <strong>${map.title}</strong> (${map.unit}) by hour of day and day, ${map.tz === "UTC" ? "UTC" : "SAST"}
      <ul class="legend">
        ${scale}
      </ul>
    </figcaption>
  </figure>`;
}
