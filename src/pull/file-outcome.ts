/**
 * What became of one portal file in a pull, and what is remembered of it after: its link and
 * validators, the body last ingested, why it is refused, and how it publishes (`answered`,
 * `published`, `newest`, `lags`, `gone`: see `source-freshness.ts`).
 */
import { type IngestSummary, skippedText } from "../ingest/ingest-summary.ts";
import type { SkipReason } from "../source/portal-csv.ts";
import type { Disagreement } from "../ingest/merge.ts";
import { HOUR_MS } from "../time.ts";
import type { FileState } from "./pull-state.ts";
import { isStopped, LAGS_KEPT } from "./source-freshness.ts";
import type { Taken } from "./take-download.ts";

/** What happened to one file. */
export interface FileOutcome {
  readonly file: string;
  /** Read from the file's PowerBI report, in its stead (`report-pull.ts`). */
  readonly via?: "powerbi";
  /**
   * `refused`: a body came and was not stored; `failed`: no body came; `stopped`: its link has
   * answered 404, or its body held its header only, for more than three days (not a failure).
   */
  readonly result: "not-modified" | "unchanged" | "ingested" | "issued" | "refused" | "failed" | "stopped";
  /** Since when the file is gone or empty (`stopped`, or `failed` while it has not lasted). */
  readonly since?: string;
  /** The newest hour of data the file brought before it stopped. */
  readonly lastData?: string;
  /** The file came back after being gone since then. */
  readonly resumed?: string;
  /** The URL the file came from, when one answered. */
  readonly link?: string;
  /** The link the page gave, when it is not the one remembered. */
  readonly linkChanged?: { readonly from: string; readonly to: string };
  readonly hoursAdded?: number;
  readonly hoursRevised?: number;
  /** The first and last hour it added or revised, when it did. */
  readonly hoursChanged?: { readonly first: string; readonly last: string };
  /** A file of weeks or months: the periods it added and revised. */
  readonly periodsAdded?: number;
  readonly periodsRevised?: number;
  readonly rowsRead?: number;
  readonly skipped?: Readonly<Record<SkipReason, number>>;
  /** The first line skipped for each reason. */
  readonly skippedFirst?: IngestSummary["skippedFirst"];
  /** A forecast download: the issue it is (new, or the newest seen again when `unchanged`). */
  readonly issue?: {
    readonly issuedAt: string;
    readonly first: string;
    readonly last: string;
    readonly hours: number;
  };
  /** Days of generated sample data the ingest removed before storing this real file. */
  readonly sampleDaysRemoved?: number;
  /** A report's values a file's differed from for the same hour (the file's kept), and the first. */
  readonly disagreements?: { readonly count: number; readonly first: Disagreement };
  /** Why it was refused or failed, or what went wrong beside it (an unreadable stored day). */
  readonly error?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The state once the pull has tried the file at `at`: when it first did. */
export function tried(known: FileState, at: number): FileState {
  return known.firstTried === undefined ? { ...known, firstTried: iso(at) } : known;
}

/** The state after a download answered (a body or 304): its link works, and it is no longer gone. */
export function answered(known: FileState, at: number): FileState {
  return { ...tried(known, at), answered: iso(at), gone: undefined };
}

// The state after a download that brought data: its publication when it added or revised an hour,
// the newest hour it reached and how far behind the download that was.
function published(state: FileState, at: number, changed: boolean, newest: number | null): FileState {
  if (newest === null) return changed ? { ...state, published: iso(at) } : state;
  const before = state.newest === undefined ? -Infinity : Date.parse(state.newest);
  const lag = Math.round(((at - newest) / HOUR_MS) * 10) / 10;
  return {
    ...state,
    ...(changed ? { published: iso(at) } : {}),
    newest: iso(Math.max(before, newest)),
    lags: [...(state.lags ?? []), lag].slice(-LAGS_KEPT),
  };
}

/**
 * A file whose link answers 404 (or whose page links none), or whose body holds its header only:
 * a failure while it is new, `stopped` (not a failure) once it has lasted three days, or at once
 * for a file that never brought data here. The pull goes on trying it.
 */
export function goneFile(
  file: string,
  why: "404" | "empty",
  detail: string,
  known: FileState,
  at: number,
): { outcome: FileOutcome; state: FileState } {
  const gone = known.gone ?? { since: iso(at), why };
  const keptRefusal = known.refused?.kind === "header" ? known.refused : undefined;
  const state: FileState = { ...tried(known, at), gone, refused: keptRefusal };
  const what =
    why === "404" ? "its link answers 404 (or its page links no .csv file)" : "it holds its header row only";
  const lastData = state.newest === undefined ? {} : { lastData: state.newest };
  // A file seen gone for the first time fails this pull, however long it may have been gone.
  if (known.gone !== undefined && isStopped(state, at)) {
    return { outcome: { file, result: "stopped", since: gone.since, ...lastData }, state };
  }
  const error =
    `${what} since ${gone.since}: ${detail}; ` +
    "it is reported as stopped, without failing the pull, once that has lasted three days";
  return { outcome: { file, result: "failed", since: gone.since, ...lastData, error }, state };
}

// What a file of weeks or months added, as its outcome says it; its newest "hour" is the
// beginning of its newest period (00:00 SAST of its first day).
function periodsOf(taken: Extract<Taken, { result: "periods" }>) {
  const fields = {
    periodsAdded: taken.added,
    periodsRevised: taken.revised,
    rowsRead: taken.rowsRead,
    skipped: taken.skipped,
    skippedFirst: taken.skippedFirst,
  };
  const newest = taken.newest === null ? null : Date.parse(`${taken.newest}T00:00:00+02:00`);
  return { fields, changed: taken.added + taken.revised > 0, newest };
}

/** What an ingest of hours tells of itself, for its outcome. */
export function hoursOf(summary: IngestSummary): Partial<FileOutcome> {
  return {
    hoursAdded: summary.hoursAdded,
    hoursRevised: summary.hoursRevised,
    ...(summary.firstChanged === null || summary.lastChanged === null
      ? {}
      : { hoursChanged: { first: iso(summary.firstChanged), last: iso(summary.lastChanged) } }),
    rowsRead: summary.rowsRead,
    skipped: summary.skipped,
    skippedFirst: summary.skippedFirst,
    ...(summary.sampleDaysRemoved > 0 ? { sampleDaysRemoved: summary.sampleDaysRemoved } : {}),
  };
}

/** The outcome of a taken body, and the file's state after it. */
export function settle(
  file: string,
  taken: Taken,
  known: FileState,
  kept: { link?: string; validators?: FileState; sha256: string; at: number },
): { outcome: FileOutcome; state: FileState } {
  if (taken.result === "refused") {
    if (taken.refusal.kind === "empty") return goneFile(file, "empty", taken.refusal.reason, known, kept.at);
    return {
      outcome: { file, result: "refused", link: kept.link, error: taken.refusal.reason },
      state: { ...tried(known, kept.at), refused: taken.refusal },
    };
  }
  const resumed = known.gone === undefined ? {} : { resumed: known.gone.since };
  const base: FileState = {
    ...answered(known, kept.at),
    ...(kept.link === undefined ? {} : { link: kept.link, etag: undefined, lastModified: undefined }),
    ...kept.validators,
    refused: undefined,
  };
  if (taken.result === "unchanged")
    return { outcome: { file, result: "unchanged", link: kept.link, ...resumed }, state: base };
  const ingested = { sha256: kept.sha256, ingested: iso(kept.at) };
  if (taken.result === "forecast") {
    const { entry } = taken;
    const issue = { issuedAt: entry.issued_at, first: entry.first, last: entry.last, hours: entry.hours };
    const outcome: FileOutcome = {
      file,
      result: taken.issued ? "issued" : "unchanged",
      link: kept.link,
      issue,
      rowsRead: taken.rowsRead,
      skipped: taken.skipped,
      ...resumed,
    };
    return { outcome, state: { ...published(base, kept.at, taken.issued, null), ...ingested } };
  }
  if (taken.result === "periods") {
    const { fields, changed, newest } = periodsOf(taken);
    const outcome: FileOutcome = { file, result: "ingested", link: kept.link, ...fields, ...resumed };
    return { outcome, state: { ...published(base, kept.at, changed, newest), ...ingested } };
  }
  const { summary, problems } = taken;
  const changed = summary.hoursAdded + summary.hoursRevised > 0;
  const outcome: FileOutcome = {
    file,
    result: "ingested",
    link: kept.link,
    ...hoursOf(summary),
    ...resumed,
    ...(problems.length > 0 ? { error: problems.join("; ") } : {}),
  };
  return { outcome, state: { ...published(base, kept.at, changed, summary.newestObserved), ...ingested } };
}

/** One line for a file's outcome. */
export function describe(outcome: FileOutcome): string {
  const named =
    outcome.via === undefined ? outcome : { ...outcome, file: `${outcome.file} (its PowerBI report)` };
  const told = describeFile(named);
  const d = outcome.disagreements;
  if (d === undefined) return told;
  const at = new Date(d.first.hour).toISOString();
  return `${told}; ${d.count} of its values differ from the files' by more than rounding, the files' kept (first: ${d.first.column} at ${at}, ${d.first.stored} stored, ${d.first.report} in the report)`;
}

function describeFile(outcome: FileOutcome): string {
  const moved =
    outcome.linkChanged === undefined
      ? ""
      : ` (the page now links ${outcome.linkChanged.to}; it was ${outcome.linkChanged.from})`;
  const back = outcome.resumed === undefined ? "" : ` (back: it was gone since ${outcome.resumed})`;
  if (outcome.result === "not-modified") return `${outcome.file}: not modified${moved}${back}`;
  if (outcome.result === "unchanged" && outcome.issue !== undefined)
    return `${outcome.file}: the same forecast as the issue of ${outcome.issue.issuedAt}, kept once${moved}${back}`;
  if (outcome.result === "unchanged")
    return `${outcome.file}: unchanged (the same file as last time)${moved}${back}`;
  if (outcome.result === "issued") {
    const { issuedAt, first, last, hours } = outcome.issue!;
    return `${outcome.file}: a new forecast issue, of ${issuedAt}: ${hours} target hours, ${first} to ${last}${moved}${back}`;
  }
  if (outcome.result === "failed") return `${outcome.file}: FAILED: ${outcome.error}`;
  if (outcome.result === "stopped") {
    const data =
      outcome.lastData === undefined ? "no data of it is stored" : `its last data is of ${outcome.lastData}`;
    return `${outcome.file}: stopped: gone or empty since ${outcome.since}; ${data}; tried again each pull`;
  }
  if (outcome.result === "refused") return `${outcome.file}: REFUSED${moved}: ${outcome.error}`;
  const removed =
    outcome.sampleDaysRemoved === undefined
      ? ""
      : `removed ${outcome.sampleDaysRemoved} days of sample data (generated, not Eskom's) first, `;
  const problem = outcome.error === undefined ? "" : `; PROBLEM: ${outcome.error}`;
  const what =
    outcome.periodsAdded === undefined
      ? `${outcome.hoursAdded} hours added, ${outcome.hoursRevised} revised`
      : `${outcome.periodsAdded} periods added, ${outcome.periodsRevised} revised`;
  return (
    `${outcome.file}: ${removed}${what}; ` +
    `rows skipped: ${skippedText(outcome.skipped!, outcome.skippedFirst)}` +
    `${moved}${back}${problem}`
  );
}
