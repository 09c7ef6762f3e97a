/**
 * The home page's load-shedding bars: the manual load reduction of each of the last 7 stored days
 * (the mix chart's days), from the `grid.load_reduction` dataset, drawn once per store version.
 * Server-rendered `<meter>` bars: no script.
 */
import { loadReduction } from "../datasets/load-reduction.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { html, type Html } from "./html.ts";
import { count } from "./pages/format.ts";
import { drawnPerStoreVersion, recentWindow } from "./recent-days.ts";

/** One day's bar: its MWh of manual load reduction (null: no data), peak MW and hours shed. */
export interface SheddingDay {
  readonly date: string;
  readonly mwh: number | null;
  readonly maxMw: number | null;
  readonly hours: number | null;
}

/** The days of the recent window (see recent-days.ts). */
export function recentShedding(store: ReadingStore): SheddingDay[] {
  const recent = recentWindow(store);
  if (recent === undefined) return [];
  return loadReduction.dailyRecords(store, recent.from, recent.to).map((d) => ({
    date: d.date,
    mwh: d.manual_load_reduction_mwh,
    maxMw: d.manual_load_reduction_max_mw,
    hours: d.hours_with_manual_load_reduction,
  }));
}

function label(day: SheddingDay): string {
  if (day.mwh === null) return "no data";
  if (day.mwh === 0) return "none";
  return `${(day.mwh / 1000).toFixed(1)} GWh`;
}

/**
 * The bars, or a line saying the stored days carry no load-reduction data. `optimum` 0 below `low`
 * 0.5 MWh tells the browser that any shedding is worse than none: such bars show in its warning colour.
 */
export function sheddingBars(days: readonly SheddingDay[]): Html {
  if (days.length === 0) return html`<p class="hint">No stored day carries load-reduction data.</p>`;
  const max = Math.max(1, ...days.map((d) => d.mwh ?? 0));
  return html`<ol class="bars shedding" aria-label="Manual load reduction per day, MWh">
    ${days.map(
      (d) =>
        html`<li>
          <span class="day">${d.date.slice(5)}</span
          ><meter
            min="0"
            max="${max}"
            low="0.5"
            high="${max}"
            optimum="0"
            value="${d.mwh ?? 0}"
            title="${
              d.mwh === null
                ? "no data"
                : `${count(Math.round(d.mwh))} MWh, peak ${count(Math.round(d.maxMw ?? 0))} MW, ${d.hours ?? 0} h`
            }"
          ></meter
          ><span class="n">${label(d)}</span>
        </li>`,
    )}
  </ol>`;
}

/** A source of the bars that redraws only when an ingest changed the store. */
export function createRecentShedding(store: ReadingStore): () => Html {
  return drawnPerStoreVersion(store, () => sheddingBars(recentShedding(store)));
}
