/**
 * A stopped file's PowerBI report, read by the pull in its stead (docs/data.md: "PowerBI reports").
 * The report's rows are the file's rows: they are kept in the archive as the CSV they stand for,
 * and ingested with every check a download gets, as a second source that fills only what no file
 * gave, each value it fills marked as the report's (`ingest/merge.ts`). A report keeps a rolling
 * window of about a week: hours the window had moved past before a pull reached them are lost, and
 * said so (`missed`).
 */
import { join } from "node:path";
import { ingestSources, type IngestSummary } from "../ingest/ingest.ts";
import type { PortalForm } from "../source/portal-forms.ts";
import { HOUR_MS, SAST_OFFSET_MS } from "../time.ts";
import { ARCHIVE_DIR, keepBody, logAttempt } from "./archive.ts";
import type { DownloadPolicy } from "./download.ts";
import { type FileOutcome, hoursOf } from "./file-outcome.ts";
import type { Located } from "./locate.ts";
import type { PortalFileSpec } from "./portal-files.ts";
import { readReport, type ReportRead, ReportReadError } from "./powerbi-report.ts";
import { embeddedReportOf } from "../source/powerbi-embed.ts";
import type { FileState, ReportState } from "./pull-state.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** A report's wall-clock stamp (SAST, as the CSV writes it) as the UTC instant it is. */
const utcOf = (stamp: string) => Date.parse(`${stamp.replace(" ", "T")}Z`) - SAST_OFFSET_MS;

/** How the pull reaches reports: its download policy, and `POWERBI_API_URL`. */
export interface ReportOptions {
  readonly dir: string;
  readonly policy: DownloadPolicy;
  readonly apiUrl?: string;
  readonly onProgress?: (line: string) => void;
}

/**
 * Ingests a report's rows (`csv`, as its file) into the store at `dir`, received at `at`. The
 * columns its file only checks (the capacity file's demand, whose source is the demand file) fill
 * the hours that file has not given, and are taken back by it when it does; where it has, they are
 * not compared (the two are known to differ by tens of MW).
 */
export function ingestReport(dir: string, spec: PortalFileSpec, csv: string, at: number): IngestSummary {
  const form = spec.form as PortalForm;
  const source = { name: `${spec.name} (its PowerBI report)`, text: csv, receivedAt: at };
  const read = { ...form, checkOnly: undefined };
  const quiet = form.checkOnly ?? [];
  return ingestSources([{ ...source, form: read, origin: "powerbi", quiet }], { dir, now: () => at });
}

// The hours the window had moved past: after the newest stored hour of the file's columns, before
// the window's first.
function missedOf(file: FileState, known: ReportState, first: number, at: number): ReportState["missed"] {
  const stored = Math.max(
    ...[file.newest, known.newest].map((t) => (t === undefined ? -Infinity : Date.parse(t))),
  );
  if (!Number.isFinite(stored) || first <= stored + HOUR_MS) return known.missed;
  return { from: iso(stored + HOUR_MS), to: iso(first - HOUR_MS), at: iso(at) };
}

// The outcome and state of a read that was ingested.
function ingested(
  spec: PortalFileSpec,
  read: ReportRead,
  summary: IngestSummary,
  file: FileState,
  known: ReportState,
  at: number,
) {
  const refused = summary.failures.map((f) => f.message).join("; ");
  const changed = summary.hoursAdded + summary.hoursRevised > 0;
  const first = read.first === null ? undefined : utcOf(read.first);
  const state: ReportState = {
    ...known,
    viewUrl: read.report.viewUrl,
    resourceKey: read.report.resourceKey,
    tried: iso(at),
    ...(refused === ""
      ? { read: iso(at), failing: undefined }
      : { failing: { since: known.failing?.since ?? iso(at), reason: refused } }),
    ...(changed ? { published: iso(at) } : {}),
    ...(first === undefined ? {} : { first: iso(first), last: iso(utcOf(read.last!)) }),
    ...(summary.newestObserved === null
      ? {}
      : { newest: iso(Math.max(summary.newestObserved, Date.parse(known.newest ?? "1900-01-01"))) }),
    ...(first === undefined ? {} : { missed: missedOf(file, known, first, at) }),
  };
  const outcome: FileOutcome = {
    file: spec.name,
    via: "powerbi",
    result: refused !== "" ? "refused" : changed ? "ingested" : "unchanged",
    link: read.report.viewUrl,
    ...hoursOf(summary),
    ...(summary.disagreements === 0
      ? {}
      : { disagreements: { count: summary.disagreements, first: summary.firstDisagreement! } }),
    ...(refused === "" ? {} : { error: refused }),
  };
  return { outcome, state };
}

/**
 * Reads the report the file's page embeds and ingests it: the outcome (`via: "powerbi"`), and what is
 * remembered of the report after; undefined when the page embeds none and never did. A read that
 * fails stores nothing of it, and says why.
 */
export async function pullReport(
  options: ReportOptions,
  spec: PortalFileSpec,
  located: Located,
  file: FileState,
  known: ReportState,
  at: number,
): Promise<{ outcome: FileOutcome; state: ReportState } | undefined> {
  const archive = join(options.dir, ARCHIVE_DIR);
  const log = (outcome: FileOutcome, read?: ReportRead, sha256?: string) =>
    logAttempt(archive, {
      at: iso(at),
      file: spec.name,
      via: "powerbi",
      page: located.page,
      page_status: located.pageStatus,
      link: read?.report.viewUrl ?? null,
      status: read === undefined ? null : 200,
      ...(sha256 === undefined
        ? {}
        : { sha256, bytes: Buffer.byteLength(read!.csv), content_type: "text/csv" }),
      outcome: outcome.result,
      ...(outcome.error === undefined ? {} : { detail: outcome.error }),
      ...(outcome.hoursAdded === undefined
        ? {}
        : { hours_added: outcome.hoursAdded, hours_revised: outcome.hoursRevised! }),
    });
  // A page that never embedded a report has none to read: nothing to say. One that did and no
  // longer does (or did not answer) is a failure: its data has no source left.
  const embeds = located.pageHtml !== undefined && embeddedReportOf(located.pageHtml) !== undefined;
  if (!embeds && known.resourceKey === undefined) return undefined;
  let read: ReportRead;
  try {
    if (located.pageHtml === undefined)
      throw new ReportReadError(`its page ${located.page} did not answer with a page`);
    read = await readReport(located.pageHtml, spec, options);
  } catch (error) {
    if (!(error instanceof ReportReadError)) throw error;
    const reason = `its PowerBI report: ${error.message}; nothing of it was stored`;
    const outcome: FileOutcome = { file: spec.name, via: "powerbi", result: "failed", error: reason };
    log(outcome);
    const failing = { since: known.failing?.since ?? iso(at), reason: error.message };
    return { outcome, state: { ...known, tried: iso(at), failing } };
  }
  const sha256 = keepBody(archive, Buffer.from(read.csv));
  const settled = ingested(spec, read, ingestReport(options.dir, spec, read.csv, at), file, known, at);
  log(settled.outcome, read, sha256);
  return settled;
}
