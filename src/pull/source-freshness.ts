/**
 * How each portal file publishes, judged from what the pulls saw of it, not from how old its data
 * is: in 2026 the portal holds hours back for days on purpose (docs/operations.md, "Freshness").
 *
 * - `current`: it published (a download brought a new or revised hour) within its cadence and
 *   the window (`STALE_AFTER_H`);
 * - `late`: it has not, for longer than that;
 * - `stopped`: its link has answered 404 (or its page links none), or its body held its header
 *   only, for more than three days; at once for a file that never brought data here.
 *
 * The store is stale when a core source (the station build-up, either of its two files, and the
 * demand file) is late or stopped, or has not been downloaded for longer than the window.
 */
import { DAY_MS, HOUR_MS } from "../time.ts";
import { type PortalFileSpec, portalFile } from "./portal-files.ts";
import { type FileState, type PullState, readPullState, type ReportState } from "./pull-state.ts";

/** A file's state of publication. */
export type SourceState = "current" | "late" | "stopped";

/** Every state, in the order the metrics list them. */
export const SOURCE_STATES: readonly SourceState[] = ["current", "late", "stopped"];

/** How long a file's link may be gone (or its body empty) before it counts as stopped. */
export const STOPPED_AFTER_MS = 3 * DAY_MS;

/** How many of the last downloads with data the usual lag is taken over. */
export const LAGS_KEPT = 7;

/** The core sources, by group: the store is stale when a group has no file publishing. */
export const CORE_SOURCES: readonly (readonly string[])[] = [
  ["Station_Build_Up.csv", "Station_Build_Up_Yesterday.csv"],
  ["System_hourly_actual_and_forecasted_demand.csv"],
];

/** One file (or the PowerBI report read in its stead) as `/healthz`, the catalog and the metrics report it. */
export interface SourceFreshness {
  /** The file's name; a report's is its file's with ` (PowerBI report)`. */
  readonly file: string;
  /** `csv`: the portal's file; `powerbi`: the report its page embeds, read while the file is stopped. */
  readonly kind: "csv" | "powerbi";
  /** A report's file. */
  readonly stands_in_for?: string;
  readonly state: SourceState;
  /** How often it is published, in hours. */
  readonly cadence_hours: number;
  /** The newest hour with an observed value it brought (its last data), UTC. */
  readonly newest_hour: string | null;
  /** When a download last brought a new or revised hour. */
  readonly last_publication: string | null;
  /** The median of how far behind its downloads their newest hour was, in hours. */
  readonly usual_lag_hours: number | null;
  /** `ok` (its last download answered), `gone` (404), `empty` (header only), `failing` (refused or failed). */
  readonly link: "ok" | "gone" | "empty" | "failing";
  /** Since when it is gone or empty, while it is. */
  readonly gone_since?: string;
  /** A report's window of hours at its last read (UTC): about the last week, rolling. */
  readonly window_first?: string;
  readonly window_last?: string;
  /**
   * Hours a report's window had moved past before a pull reached them (UTC): lost, as the report
   * keeps no more, since no file gave them either; `seen_at`: the pull that found them lost.
   */
  readonly window_missed?: { readonly from: string; readonly to: string; readonly seen_at: string };
  /** Why a report's reads fail, while they do. */
  readonly failing?: string;
}

/** Whether a file gone since `gone` is stopped at `now`; one that never brought data is at once. */
export function isStopped(state: FileState, now: number): boolean {
  if (state.gone === undefined) return false;
  const neverPublished = state.published === undefined && state.newest === undefined;
  return neverPublished || now - Date.parse(state.gone.since) > STOPPED_AFTER_MS;
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const m = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return Math.round(m * 10) / 10;
}

// Whether nothing new came `since` for longer than the file's cadence and `windowMs`.
const isLate = (spec: PortalFileSpec, since: string | undefined, now: number, windowMs: number) =>
  since === undefined || now - Date.parse(since) > spec.cadenceHours * HOUR_MS + windowMs;

/** One file's freshness at `now`, with `windowMs` of grace past its cadence. */
export function freshnessOf(
  spec: PortalFileSpec,
  state: FileState,
  now: number,
  windowMs: number,
): SourceFreshness {
  const late = isLate(spec, state.published ?? state.firstTried, now, windowMs);
  const link =
    state.gone !== undefined
      ? state.gone.why === "404"
        ? "gone"
        : "empty"
      : state.refused !== undefined
        ? "failing"
        : "ok";
  return {
    file: spec.name,
    kind: "csv",
    state: isStopped(state, now) ? "stopped" : late ? "late" : "current",
    cadence_hours: spec.cadenceHours,
    newest_hour: state.newest ?? null,
    last_publication: state.published ?? null,
    usual_lag_hours: median(state.lags ?? []),
    link,
    ...(state.gone === undefined ? {} : { gone_since: state.gone.since }),
  };
}

/**
 * The PowerBI report read in `spec`'s stead, judged at `now` as a file is: `current` while its reads
 * bring new hours within the file's cadence and `windowMs`, `late` when they have not, `stopped`
 * when every read has failed for more than three days.
 */
export function reportFreshnessOf(
  spec: PortalFileSpec,
  report: ReportState,
  now: number,
  windowMs: number,
): SourceFreshness {
  const late = isLate(spec, report.published ?? report.tried, now, windowMs);
  const failing = report.failing;
  const stopped = failing !== undefined && now - Date.parse(failing.since) > STOPPED_AFTER_MS;
  return {
    file: `${spec.name} (PowerBI report)`,
    kind: "powerbi",
    stands_in_for: spec.name,
    state: stopped ? "stopped" : late ? "late" : "current",
    cadence_hours: spec.cadenceHours,
    newest_hour: report.newest ?? null,
    last_publication: report.published ?? null,
    usual_lag_hours: null,
    link: failing === undefined ? "ok" : "failing",
    ...(report.first === undefined ? {} : { window_first: report.first, window_last: report.last! }),
    ...(report.missed === undefined
      ? {}
      : { window_missed: { from: report.missed.from, to: report.missed.to, seen_at: report.missed.at } }),
    ...(failing === undefined ? {} : { failing: failing.reason }),
  };
}

/** Every known file the pulls have tried, in the pull's order, each followed by its report if read. */
export function sourcesOf(pull: PullState, now: number, windowMs: number): SourceFreshness[] {
  return Object.entries(pull.files).flatMap(([name, state]) => {
    const spec = portalFile(name);
    if (spec === undefined || state.firstTried === undefined) return [];
    const report = pull.reports?.[name];
    return [
      freshnessOf(spec, state, now, windowMs),
      ...(report === undefined ? [] : [reportFreshnessOf(spec, report, now, windowMs)]),
    ];
  });
}

/** Whether the pulls judge the store stale, and why. */
export interface Staleness {
  /** False when the pulls never tried a core file (a store fed by hand: its data's age is the measure). */
  readonly judged: boolean;
  /** Why it is stale, when it is. */
  readonly why?: string;
}

/**
 * Whether the store is stale at `now`: a core group none of whose files publishes, or whose files
 * were last downloaded longer than `windowMs` ago.
 */
export function staleness(pull: PullState, now: number, windowMs: number): Staleness {
  let judged = false;
  for (const group of CORE_SOURCES) {
    const tried = group.flatMap((name) => {
      const spec = portalFile(name);
      const state = pull.files[name];
      return spec === undefined || state?.firstTried === undefined
        ? []
        : [{ state, fresh: freshnessOf(spec, state, now, windowMs) }];
    });
    if (tried.length === 0) continue;
    judged = true;
    if (tried.every(({ fresh }) => fresh.state !== "current")) {
      const states = tried.map(({ fresh }) => `${fresh.file} is ${fresh.state}`).join(", ");
      return {
        judged,
        why: `${states}: no new hour published for longer than its cadence and STALE_AFTER_H`,
      };
    }
    const answered = Math.max(
      ...tried.map(({ state }) => (state.answered === undefined ? -Infinity : Date.parse(state.answered))),
    );
    if (now - answered > windowMs) {
      const why = `${group.join(" or ")} has not been downloaded for longer than STALE_AFTER_H: is make pull running?`;
      return { judged, why };
    }
  }
  return { judged };
}

/** Whether a store's data is stale at `now`, why, and each source's freshness. */
export interface StoreFreshness {
  readonly stale: boolean;
  readonly why?: string;
  readonly sources: readonly SourceFreshness[];
}

/**
 * The store at `dir` judged at `now`: by its sources' publication when the pulls keep it, else (a
 * store fed by hand) by its newest actual hour's age, `lastActual`. `windowMs` is STALE_AFTER_H.
 */
export function storeFreshness(
  dir: string,
  lastActual: number | null,
  now: number,
  windowMs: number,
): StoreFreshness {
  let pull: PullState;
  try {
    pull = readPullState(dir);
  } catch {
    pull = { format: 2, files: {} }; // a damaged state file: `pull` says so; judged by data age here
  }
  const sources = sourcesOf(pull, now, windowMs);
  const judged = staleness(pull, now, windowMs);
  if (judged.judged)
    return { stale: judged.why !== undefined, ...(judged.why ? { why: judged.why } : {}), sources };
  if (lastActual === null) return { stale: true, why: "the store holds no actual hour", sources };
  if (now - lastActual > windowMs) {
    return {
      stale: true,
      why: "the newest actual hour is older than STALE_AFTER_H, and no pull keeps the store",
      sources,
    };
  }
  return { stale: false, sources };
}
