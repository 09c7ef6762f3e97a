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
import { answered, describe, type FileOutcome, goneFile, settle, tried } from "./file-outcome.ts";
import { fileEvents, sourceEvent } from "./pull-events.ts";
import { gridEvents } from "./grid-events.ts";
import { outlookEvents } from "./outlook-events.ts";
import { freshnessOf } from "./source-freshness.ts";
import { pullReport } from "./report-pull.ts";
import { HOUR_MS } from "../time.ts";
import { enqueue, type WebhookEvent } from "../webhooks/outbox.ts";

export { describe, type FileOutcome, settle } from "./file-outcome.ts";

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
  /** The grace past a file's cadence before it is late (STALE_AFTER_H; 36 hours by default). */
  readonly staleAfterMs?: number;
  /**
   * Whether a stopped file's PowerBI report is read in its stead (`PORTAL_POWERBI`, on by default),
   * and the cluster's API at another address (`POWERBI_API_URL`).
   */
  readonly powerbi?: { readonly enabled: boolean; readonly apiUrl?: string };
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
    ...(taken?.result === "periods"
      ? {
          periods_added: taken.added,
          periods_revised: taken.revised,
          rows: {
            read: taken.rowsRead,
            stored: taken.rowsRead - Object.values(taken.skipped).reduce((a, b) => a + b, 0),
            ...taken.skipped,
          },
        }
      : {}),
    ...(ingested === undefined
      ? {}
      : {
          hours_added: ingested.hoursAdded,
          hours_revised: ingested.hoursRevised,
          rows: { read: ingested.rowsRead, stored: ingested.rowsStored, ...ingested.skipped },
        }),
  };
}

// What became of a file no URL gave: gone (every URL answered 404) or a failed download.
function missingFile(file: string, located: Located, known: FileState, at: number) {
  const urls = located.tried.join("; ");
  if (located.gone) return goneFile(file, "404", `tried ${urls}`, known, at);
  const error = `no file came: ${urls}`;
  const refusal: Refusal = { at: iso(at), kind: "download", reason: error };
  // A changed header stays the reason until it is accepted.
  const refused = known.refused?.kind === "header" ? known.refused : refusal;
  return {
    outcome: { file, result: "failed", error } as FileOutcome,
    state: { ...tried(known, at), refused },
  };
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
    const { outcome, state } = missingFile(spec.name, located, known, at);
    if (existsSync(options.dir)) logAttempt(archive, attemptOf(spec.name, at, located, outcome));
    return { located, outcome, state };
  }
  if (located.got.kind === "not-modified") {
    const resumed = known.gone === undefined ? {} : { resumed: known.gone.since };
    const outcome: FileOutcome = { file: spec.name, result: "not-modified", link: located.link!, ...resumed };
    logAttempt(archive, attemptOf(spec.name, at, located, outcome));
    const refused = known.refused?.kind === "header" ? known.refused : undefined;
    return { located, outcome, state: { ...answered(known, at), refused } };
  }
  const { body, contentType, validators } = located.got;
  const sha256 = keepBody(archive, body);
  const taken = takeDownload(options.dir, spec, known, { body, contentType, receivedAt: at, sha256 }, now);
  const settled = settle(spec.name, taken, known, { link: located.link!, validators, sha256, at });
  const outcome = linkChanged === undefined ? settled.outcome : { ...settled.outcome, linkChanged };
  logAttempt(archive, attemptOf(spec.name, at, located, outcome, taken, sha256));
  return { located, outcome, state: settled.state };
}

// The file's webhook events put in the outbox; one that cannot be written is the file's error.
function withEvents(
  dir: string,
  outcome: FileOutcome,
  state: FileState,
  at: number,
  source: WebhookEvent | undefined,
): FileOutcome {
  try {
    for (const event of [...fileEvents(outcome, state), ...(source ? [source] : [])])
      enqueue(dir, event, { now: at });
    return outcome;
  } catch (error) {
    const problem = `its webhook events could not be queued: ${(error as Error).message}`;
    return { ...outcome, error: outcome.error === undefined ? problem : `${outcome.error}; ${problem}` };
  }
}

// The grid's own events after the store gained hours (`gained`), and the outlook's after every
// pull (it is issued anew each hour); a failure to make them fails the pull, named, and so does a
// damaged state of theirs, set aside, though the events were made afresh.
function eventsFailure(dir: string, at: number, gained: boolean): FileOutcome[] {
  const failed = (what: string, message: string): FileOutcome => ({
    file: "(webhook events)",
    result: "failed",
    error: `${what}: ${message}`,
  });
  const out: FileOutcome[] = [];
  try {
    if (gained) gridEvents(dir, at, (m) => out.push(failed("the grid's events", m)));
  } catch (error) {
    return [...out, failed("the grid's events", (error as Error).message)];
  }
  try {
    if (existsSync(dir)) outlookEvents(dir, at, (m) => out.push(failed("the outlook's events", m)));
  } catch (error) {
    return [...out, failed("the outlook's events", (error as Error).message)];
  }
  return out;
}

// Whether a stopped file's report is read: an hourly file of readings, not another's second source.
function readsReportOf(options: PullOptions, spec: PortalFileSpec): boolean {
  const form = spec.form as { target?: string };
  return options.powerbi?.enabled !== false && form.target === "readings" && spec.fill !== true;
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
    // Its state of publication after this download, told when it changed since the last pull.
    const fresh = freshnessOf(spec, pulled.state, now(), options.staleAfterMs ?? 36 * HOUR_MS);
    const judged = { ...pulled.state, announced: fresh.state };
    const told = sourceEvent(known.announced, fresh);
    files.push(withEvents(options.dir, pulled.outcome, judged, now(), told));
    if (JSON.stringify(judged) !== JSON.stringify(known)) {
      state.files[spec.name] = judged;
      changed = true;
    }
    if (fresh.state === "stopped" && readsReportOf(options, spec)) {
      const report = await pullReport(
        { ...options, apiUrl: options.powerbi?.apiUrl },
        spec,
        pulled.located,
        judged,
        state.reports?.[spec.name] ?? {},
        now(),
      );
      if (report !== undefined) {
        options.onProgress?.(describe(report.outcome));
        const published = { newest: report.state.newest, ingested: report.state.read };
        files.push(withEvents(options.dir, report.outcome, published, now(), undefined));
        state.reports = { ...state.reports, [spec.name]: report.state };
        changed = true;
      }
    }
  }
  // Nothing is written into a DATA_DIR that nothing was downloaded into.
  if (changed && existsSync(options.dir)) writePullState(options.dir, state);
  const gained = files.some((f) => (f.hoursAdded ?? 0) + (f.hoursRevised ?? 0) > 0);
  files.push(...eventsFailure(options.dir, now(), gained));
  const ok = files.every(
    (f) =>
      ["not-modified", "unchanged", "ingested", "issued", "stopped"].includes(f.result) &&
      f.error === undefined,
  );
  if (existsSync(options.dir)) {
    if (ok) markPullSucceeded(options.dir, now());
    recordPullRun(options.dir, ok ? "ok" : "failed");
  }
  return { ok, files };
}
