/**
 * What the home page's charts share: the drawing's size and margins, a scale from instants and MW
 * to its units, and the axes (GW gridlines, a tick and a date at each UTC midnight).
 */
import { html, type Html } from "./html.ts";

export const WIDTH = 720;
export const HEIGHT = 300;
/**
 * Room for the axis labels at their largest: the stylesheet draws them at 24 units on a phone,
 * where the drawing is shrunk (12 on a desktop). Above the top gridline, the upper half of its GW
 * label; under the plot, the lower half of "0" and the dates; left of it, the widest GW label.
 */
export const LABEL = 24;
export const PAD = { left: 48, right: 12, top: LABEL * 0.7, bottom: LABEL * 2 };

// A round step for about five gridlines.
export function niceStep(max: number): number {
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
}

export const fixed = (n: number) => n.toFixed(1);

/** Where values land in the drawing: x for an instant, y for a MW total. */
export interface Scale {
  readonly x: (t: number) => number;
  readonly y: (v: number) => number;
  readonly yMax: number;
  readonly step: number;
}

// Horizontal grid lines with their GW labels.
export function gridLines({ y, yMax, step }: Scale): Html[] {
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
export function dayTicks(first: number, last: number, { x }: Scale): Html[] {
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

/** The scale of a chart of instants in [first, last] and values from 0 to at least `top` MW. */
export function timeScale(first: number, last: number, top: number): Scale {
  const step = niceStep(Math.max(top, 1));
  const yMax = Math.ceil(Math.max(top, 1) / step) * step;
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  return {
    x: (t) => PAD.left + ((t - first) / (last - first)) * innerW,
    y: (v) => PAD.top + innerH - (v / yMax) * innerH,
    yMax,
    step,
  };
}
