/**
 * How each portal file publishes (and each PowerBI report read in a stopped file's stead, labelled
 * `<file> (PowerBI report)`), and whether the data is stale, read at scrape time from what the
 * pulls recorded (`pull/source-freshness.ts`): the same figures `/healthz` gives, for alerts.
 */
import { Gauge, type Registry } from "prom-client";
import { type SourceFreshness, SOURCE_STATES, storeFreshness } from "../pull/source-freshness.ts";
import type { ReadingStore } from "../store/reading-store.ts";

const seconds = (iso: string | null) => (iso === null ? null : Date.parse(iso) / 1000);

/** Registers the source gauges and `gds_data_stale` in `registry`. */
export function sourceMetrics(
  registry: Registry,
  options: { store: ReadingStore; dir: string; staleAfterMs: number; now: () => number },
): void {
  const { store, dir, staleAfterMs, now } = options;
  const judge = () => storeFreshness(dir, store.refresh().lastActual, now(), staleAfterMs);
  new Gauge({
    name: "gds_data_stale",
    aggregator: "first",
    help: "1 while /healthz says stale: a core portal file has published nothing new for longer than its cadence and STALE_AFTER_H, or was not downloaded for that long (a store no pull keeps: its newest hour is older than STALE_AFTER_H); 0 for sample data.",
    registers: [registry],
    collect() {
      this.set(!store.refresh().sample && judge().stale ? 1 : 0);
    },
  });
  new Gauge({
    name: "gds_source_state",
    aggregator: "first",
    help: "1 for each portal file's state of publication (and each PowerBI report's, read in a stopped file's stead): current, late (nothing new for longer than its cadence and STALE_AFTER_H) or stopped (404 or empty for more than three days; a report: failing for that long).",
    labelNames: ["file", "state"],
    registers: [registry],
    collect() {
      this.reset();
      for (const source of judge().sources) {
        for (const state of SOURCE_STATES)
          this.set({ file: source.file, state }, source.state === state ? 1 : 0);
      }
    },
  });
  for (const [name, help, value] of PER_SOURCE) perSource(registry, judge, name, help, value);
}

const missedHours = (missed: { from: string; to: string }) =>
  (Date.parse(missed.to) - Date.parse(missed.from)) / 3_600_000 + 1;

// The gauges with one value per portal file: name, help, value (none: null).
const PER_SOURCE: readonly (readonly [string, string, (s: SourceFreshness) => number | null])[] = [
  [
    "gds_source_last_publication_timestamp_seconds",
    "When a download of each portal file last brought a new or revised hour, as a Unix time.",
    (s) => seconds(s.last_publication),
  ],
  [
    "gds_source_newest_hour_timestamp_seconds",
    "The newest hour with an observed value each portal file brought, as a Unix time.",
    (s) => seconds(s.newest_hour),
  ],
  [
    "gds_source_usual_lag_hours",
    "How far behind its downloads each portal file's newest hour usually is, in hours.",
    (s) => s.usual_lag_hours,
  ],
  [
    "gds_source_window_missed_hours",
    "For each PowerBI report read in a stopped file's stead: the hours its rolling window had moved past before a pull reached them, lost (0: none).",
    (s) => (s.kind !== "powerbi" ? null : s.window_missed === undefined ? 0 : missedHours(s.window_missed)),
  ],
  [
    "gds_source_window_missed_timestamp_seconds",
    "For each PowerBI report read in a stopped file's stead: when a pull last found hours its window had moved past (lost), as a Unix time (0: never).",
    (s) =>
      s.kind !== "powerbi" ? null : s.window_missed === undefined ? 0 : seconds(s.window_missed.seen_at),
  ],
];

// A gauge with one value per portal file, none where `value` gives none.
function perSource(
  registry: Registry,
  judge: () => { readonly sources: readonly SourceFreshness[] },
  name: string,
  help: string,
  value: (s: SourceFreshness) => number | null,
): void {
  new Gauge({
    name,
    aggregator: "first",
    help,
    labelNames: ["file"],
    registers: [registry],
    collect() {
      this.reset();
      for (const source of judge().sources) {
        const v = value(source);
        if (v !== null) this.set({ file: source.file }, v);
      }
    },
  });
}
