/**
 * `pull`: follows the portal's pages to its files, downloads them conditionally, keeps every body
 * in the archive and ingests what is new (docs/operations.md: "Keeping the data current"). Each
 * file is checked before it can touch the store (`take-download.ts`); a file that fails is
 * reported and the store keeps what it had, while the other files still go in. When no server
 * answers at all, the run stops at once and writes nothing: a DATA_DIR that did not exist is
 * not created.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ARCHIVE_DIR, type Attempt, keepBody, logAttempt } from "./archive.ts";
import type { DownloadPolicy } from "./download.ts";
import { locate, type Located } from "./locate.ts";
import type { PortalFileSpec } from "./portal-files.ts";
import {
  type FileState,
  markPullSucceeded,
  type PullState,
  readPullState,
  recordPullRun,
  type Refusal,
  writePullState,
} from "./pull-state.ts";
import { takeDownload, type Taken } from "./take-download.ts";
import type { SkipReason } from "../source/portal-csv.ts";
import { type IngestSummary, skippedText } from "../ingest/ingest-summary.ts";

/** What happened to one file. */
export interface FileOutcome {
  readonly file: string;
  /**
   * `refused`: a body came and was not stored; `failed`: no body came; `unpublished`: the portal
   * has not published the file since `since`, as the last pull already said (not a failure).
   */
  readonly result:
    "not-modified" | "unchanged" | "ingested" | "issued" | "refused" | "failed" | "unpublished";
  /** Since when the portal has not published the file (`unpublished`). */
  readonly since?: string;
  /** The URL the file came from, when one answered. */
  readonly link?: string;
  /** The link the page gave, when it is not the one remembered. */
  readonly linkChanged?: { readonly from: string; readonly to: string };
  readonly hoursAdded?: number;
  readonly hoursRevised?: number;
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
  /** Why it was refused or failed, or what went wrong beside it (an unreadable stored day). */
  readonly error?: string;
}

/** A whole run. `unreachable` says why it stopped when no server answered. */
export interface PullResult {
  readonly ok: boolean;
  readonly files: FileOutcome[];
  readonly unreachable?: string;
}

export interface PullOptions {
  readonly dir: string;
  /** The portal's root (`PORTAL_URL`). */
  readonly root: string;
  readonly files: readonly PortalFileSpec[];
  readonly policy: DownloadPolicy;
  readonly now?: () => number;
  /** Progress lines (each URL fetched), for stderr with --verbose. */
  readonly onProgress?: (line: string) => void;
}

const iso = (ms: number) => new Date(ms).toISOString();

// The attempt's line for the log, from where the file came and what became of it.
function attemptOf(
  file: string,
  at: number,
  located: Located,
  outcome: FileOutcome,
  taken?: Taken,
  sha256?: string,
): Attempt {
  const got = located.got;
  const validators = got?.kind === "body" ? got.validators : {};
  const ingested = taken?.result === "ingested" ? taken.summary : undefined;
  return {
    at: iso(at),
    file,
    page: located.page,
    page_status: located.pageStatus,
    link: located.link,
    status: got === undefined ? null : got.kind === "body" ? 200 : 304,
    ...(validators.etag === undefined ? {} : { etag: validators.etag }),
    ...(validators.lastModified === undefined ? {} : { last_modified: validators.lastModified }),
    ...(sha256 === undefined || got?.kind !== "body"
      ? {}
      : { sha256, bytes: got.body.length, content_type: got.contentType }),
    outcome: outcome.result,
    ...(outcome.error === undefined ? {} : { detail: outcome.error }),
    ...(ingested === undefined
      ? {}
      : {
          hours_added: ingested.hoursAdded,
          hours_revised: ingested.hoursRevised,
          rows: { read: ingested.rowsRead, stored: ingested.rowsStored, ...ingested.skipped },
        }),
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
    return {
      outcome: { file, result: "refused", link: kept.link, error: taken.refusal.reason },
      state: { ...known, refused: taken.refusal },
    };
  }
  const base: FileState = {
    ...known,
    ...(kept.link === undefined ? {} : { link: kept.link, etag: undefined, lastModified: undefined }),
    ...kept.validators,
    refused: undefined,
  };
  if (taken.result === "unchanged")
    return { outcome: { file, result: "unchanged", link: kept.link }, state: base };
  if (taken.result === "forecast") {
    const { entry } = taken;
    const issue = { issuedAt: entry.issued_at, first: entry.first, last: entry.last, hours: entry.hours };
    return {
      outcome: {
        file,
        result: taken.issued ? "issued" : "unchanged",
        link: kept.link,
        issue,
        rowsRead: taken.rowsRead,
        skipped: taken.skipped,
      },
      state: { ...base, sha256: kept.sha256, ingested: iso(kept.at) },
    };
  }
  const { summary, problems } = taken;
  return {
    outcome: {
      file,
      result: "ingested",
      link: kept.link,
      hoursAdded: summary.hoursAdded,
      hoursRevised: summary.hoursRevised,
      rowsRead: summary.rowsRead,
      skipped: summary.skipped,
      skippedFirst: summary.skippedFirst,
      ...(summary.sampleDaysRemoved > 0 ? { sampleDaysRemoved: summary.sampleDaysRemoved } : {}),
      ...(problems.length > 0 ? { error: problems.join("; ") } : {}),
    },
    state: { ...base, sha256: kept.sha256, ingested: iso(kept.at) },
  };
}

/**
 * What became of a file no URL gave. A file the portal does not publish (its page links none and
 * every URL answers 404) fails the first pull that sees it, which says why; later pulls report it
 * as `unpublished` without failing, until it comes back. Anything else fails every time.
 */
function missingFile(file: string, located: Located, known: FileState, at: number) {
  const tried = located.tried.join("; ");
  if (located.unpublished && known.refused?.kind === "unpublished") {
    const outcome: FileOutcome = { file, result: "unpublished", since: known.refused.at };
    return { outcome, refusal: known.refused };
  }
  if (located.unpublished) {
    const reason = `not published: its page links no .csv file and no upload folder has it (${tried})`;
    const error = `${reason}; later pulls say so without failing, until the portal publishes it again`;
    const refusal: Refusal = { at: iso(at), kind: "unpublished", reason };
    return { outcome: { file, result: "failed", error } as FileOutcome, refusal };
  }
  const error = `no file came: ${tried}`;
  const refusal: Refusal = { at: iso(at), kind: "download", reason: error };
  return { outcome: { file, result: "failed", error } as FileOutcome, refusal };
}

// Downloads, keeps and takes one file; returns its outcome and new state.
async function pullFile(options: PullOptions, spec: PortalFileSpec, known: FileState, now: () => number) {
  const at = now();
  const located = await locate({ root: options.root, policy: options.policy, now }, spec, known);
  const linkChanged =
    located.link !== null && known.link !== undefined && located.link !== known.link
      ? { from: known.link, to: located.link }
      : undefined;
  const archive = join(options.dir, ARCHIVE_DIR);
  if (located.got === undefined) {
    const { outcome, refusal } = missingFile(spec.name, located, known, at);
    if (existsSync(options.dir)) logAttempt(archive, attemptOf(spec.name, at, located, outcome));
    // A changed header stays the reason until it is accepted.
    const refused = known.refused?.kind === "header" ? known.refused : refusal;
    return { located, outcome, state: { ...known, refused } };
  }
  if (located.got.kind === "not-modified") {
    const outcome: FileOutcome = { file: spec.name, result: "not-modified", link: located.link! };
    logAttempt(archive, attemptOf(spec.name, at, located, outcome));
    const state = known.refused?.kind === "header" ? known : { ...known, refused: undefined };
    return { located, outcome, state };
  }
  const { body, contentType, validators } = located.got;
  const sha256 = keepBody(archive, body);
  const taken = takeDownload(options.dir, spec, known, { body, contentType, receivedAt: at, sha256 }, now);
  const settled = settle(spec.name, taken, known, { link: located.link!, validators, sha256, at });
  const outcome = linkChanged === undefined ? settled.outcome : { ...settled.outcome, linkChanged };
  logAttempt(archive, attemptOf(spec.name, at, located, outcome, taken, sha256));
  return { located, outcome, state: settled.state };
}

/** Pulls every file; `ok` when each was current or ingested. */
export async function pullPortal(options: PullOptions): Promise<PullResult> {
  const now = options.now ?? Date.now;
  const state: PullState = readPullState(options.dir);
  const files: FileOutcome[] = [];
  let changed = false;
  for (const spec of options.files) {
    const known = state.files[spec.name] ?? {};
    const pulled = await pullFile(options, spec, known, now);
    if (pulled.located.unreachable) {
      const reason = pulled.located.tried.join("; ");
      const unreachable = `Cannot reach the portal at ${options.root}: ${reason}; nothing was downloaded or stored`;
      if (existsSync(options.dir)) recordPullRun(options.dir, "failed");
      return { ok: false, files, unreachable };
    }
    options.onProgress?.(describe(pulled.outcome));
    files.push(pulled.outcome);
    if (JSON.stringify(pulled.state) !== JSON.stringify(known)) {
      state.files[spec.name] = pulled.state;
      changed = true;
    }
  }
  // Nothing is written into a DATA_DIR that nothing was downloaded into.
  if (changed && existsSync(options.dir)) writePullState(options.dir, state);
  const ok = files.every(
    (f) =>
      ["not-modified", "unchanged", "ingested", "issued", "unpublished"].includes(f.result) &&
      f.error === undefined,
  );
  if (existsSync(options.dir)) {
    if (ok) markPullSucceeded(options.dir, now());
    recordPullRun(options.dir, ok ? "ok" : "failed");
  }
  return { ok, files };
}

/** One line for a file's outcome. */
export function describe(outcome: FileOutcome): string {
  const moved =
    outcome.linkChanged === undefined
      ? ""
      : ` (the page now links ${outcome.linkChanged.to}; it was ${outcome.linkChanged.from})`;
  if (outcome.result === "not-modified") return `${outcome.file}: not modified${moved}`;
  if (outcome.result === "unchanged" && outcome.issue !== undefined)
    return `${outcome.file}: the same forecast as the issue of ${outcome.issue.issuedAt}, kept once${moved}`;
  if (outcome.result === "unchanged")
    return `${outcome.file}: unchanged (the same file as last time)${moved}`;
  if (outcome.result === "issued") {
    const { issuedAt, first, last, hours } = outcome.issue!;
    return `${outcome.file}: a new forecast issue, of ${issuedAt}: ${hours} target hours, ${first} to ${last}${moved}`;
  }
  if (outcome.result === "failed") return `${outcome.file}: FAILED: ${outcome.error}`;
  if (outcome.result === "unpublished")
    return `${outcome.file}: not published (its page has linked no file since ${outcome.since}); checked again each pull`;
  if (outcome.result === "refused") return `${outcome.file}: REFUSED${moved}: ${outcome.error}`;
  const removed =
    outcome.sampleDaysRemoved === undefined
      ? ""
      : `removed ${outcome.sampleDaysRemoved} days of sample data (generated, not Eskom's) first, `;
  const s = outcome.skipped!;
  const problem = outcome.error === undefined ? "" : `; PROBLEM: ${outcome.error}`;
  return (
    `${outcome.file}: ${removed}${outcome.hoursAdded} hours added, ${outcome.hoursRevised} revised; ` +
    `rows skipped: ${skippedText(s, outcome.skippedFirst)}` +
    `${moved}${problem}`
  );
}
