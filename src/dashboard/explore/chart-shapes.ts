/**
 * The shapes of the time charts (`time-chart.ts`): a series' line, broken at gaps; areas stacked
 * from zero; the area between two series, shaded one way where the first is over the second and
 * the other where it is under.
 */
import { html, type Html } from "../html.ts";

/** One series: its points (instant, value or null for a gap) and the class that colours it. */
export interface Series {
  readonly label: string;
  readonly cls: string;
  readonly points: readonly (readonly [number, number | null])[];
}

/** A shaded area's class and its words in the legend. */
export interface Shade {
  readonly cls: string;
  readonly label: string;
}

/** A coordinate as the drawing writes it. */
export const fixed = (n: number) => n.toFixed(1);

/** A line through a series' points, broken at gaps. */
export function line(s: Series, x: (t: number) => number, y: (v: number) => number): Html {
  const runs: string[] = [];
  let run: string[] = [];
  for (const [t, v] of s.points) {
    if (v === null) {
      if (run.length > 0) runs.push(run.join(" "));
      run = [];
      continue;
    }
    run.push(`${fixed(x(t))},${fixed(y(v))}`);
  }
  if (run.length > 0) runs.push(run.join(" "));
  return html`<g class="series ${s.cls}"
    ><title>${s.label}</title>${runs.map((points) => html`<polyline points="${points}" />`)}</g
  >`;
}

/**
 * The area between the first two series, a shape per run of hours where both have a value: over
 * the second up to the first (above), and any part of the second over the first (below), so that a
 * run where the lines cross never shades one as the other.
 */
export function betweenAreas(
  series: readonly Series[],
  { above, below }: { readonly above: Shade; readonly below: Shade },
  x: (t: number) => number,
  y: (v: number) => number,
) {
  const [upper, lower] = series;
  const runs: [number, number, number][][] = [[]];
  upper!.points.forEach(([t, a], i) => {
    const b = lower!.points[i]?.[1] ?? null;
    if (a === null || b === null) runs.push([]);
    else runs.at(-1)!.push([t, a, b]);
  });
  const shape = (
    run: [number, number, number][],
    top: (p: number[]) => number,
    bottom: (p: number[]) => number,
  ) =>
    [
      ...run.map((p) => `${fixed(x(p[0]))},${fixed(y(top(p)))}`),
      ...run.map((p) => `${fixed(x(p[0]))},${fixed(y(bottom(p)))}`).reverse(),
    ].join(" ");
  return runs
    .filter((run) => run.length > 0)
    .flatMap((run) => [
      {
        band: above,
        html: html`<polygon
          class="${above.cls}"
          points="${shape(
            run,
            (p) => p[1]!,
            (p) => Math.min(p[1]!, p[2]!),
          )}"
        />`,
      },
      ...(run.some((p) => p[2] > p[1])
        ? [
            {
              band: below,
              html: html`<polygon
                class="${below.cls}"
                points="${shape(
                  run,
                  (p) => Math.max(p[1]!, p[2]!),
                  (p) => p[1]!,
                )}"
              />`,
            },
          ]
        : []),
    ]);
}

/** Areas stacked from zero, the first series at the bottom (a gap counts as zero). */
export function stackedAreas(
  series: readonly Series[],
  x: (t: number) => number,
  y: (v: number) => number,
): Html[] {
  const times = series[0]?.points.map(([t]) => t) ?? [];
  const tops = times.map(() => 0);
  return series.map((s) => {
    const bottom = [...tops];
    s.points.forEach(([, v], i) => (tops[i]! += Math.max(0, v ?? 0)));
    const upper = times.map((t, i) => `${fixed(x(t))},${fixed(y(tops[i]!))}`);
    const lower = times.map((t, i) => `${fixed(x(t))},${fixed(y(bottom[i]!))}`).reverse();
    return html`<polygon class="area ${s.cls}" points="${[...upper, ...lower].join(" ")}"
      ><title>${s.label}</title></polygon
    >`;
  });
}
