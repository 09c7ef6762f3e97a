/**
 * `npm run replay-archive`: rebuilds a store from the pull's archive alone (docs/operations.md:
 * "The download archive"). Every kept download is taken again, in the order it came, with the
 * clock at the time it came, through the checks and the ingest of this release: the store, its
 * revisions (`as_of`) and what the pull remembers come out as if the pulls had run with this
 * release's parser. An acceptance of a changed header is repeated where it was made, and a stopped
 * file's PowerBI report, kept as the rows of that file, is ingested as the report's again. The
 * portal is never asked for anything.
 */
import { cpSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadManifest } from "../store/manifest.ts";
import { ForecastIssues } from "../forecasts/forecast-issues.ts";
import { isSampleStore } from "../store/sample-mark.ts";
import { acceptHeader } from "./accept-header.ts";
import { ARCHIVE_DIR, type Attempt, readAttempts, readBody } from "./archive.ts";
import { portalFile } from "./portal-files.ts";
import { type FileOutcome, settle } from "./pull.ts";
import { hoursOf } from "./file-outcome.ts";
import { type FileState, writePullState } from "./pull-state.ts";
import { takeDownload } from "./take-download.ts";
import { ingestReport } from "./report-pull.ts";

/** What a replay did. */
export interface Replay {
  readonly outcomes: { readonly at: string; readonly outcome: FileOutcome }[];
  /** Log lines left out: torn appends, and files this release does not know. */
  readonly passed: number;
}

/** A replay that cannot start. */
export class ReplayError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayError";
  }
}

// One logged download taken again; its outcome, or undefined when there was no body to take.
function retake(dir: string, archive: string, attempt: Attempt, files: Record<string, FileState>) {
  const spec = portalFile(attempt.file)!;
  const at = Date.parse(attempt.at);
  const known = files[spec.name] ?? {};
  if (attempt.outcome === "accepted-header") {
    return acceptHeader(dir, spec, { now: () => at, archive, state: files, log: false }).outcome;
  }
  if (attempt.sha256 === undefined || attempt.status !== 200) return undefined;
  const body = readBody(archive, attempt.sha256);
  // A PowerBI report's rows, kept as the file they stood in for: ingested as the report's again.
  if (attempt.via === "powerbi") return reportAgain(dir, spec, body.toString("utf8"), at);
  const received = { body, contentType: attempt.content_type ?? "", receivedAt: at, sha256: attempt.sha256 };
  const taken = takeDownload(dir, spec, known, received, () => at);
  const validators = {
    ...(attempt.etag === undefined ? {} : { etag: attempt.etag }),
    ...(attempt.last_modified === undefined ? {} : { lastModified: attempt.last_modified }),
  };
  const kept = { link: attempt.link ?? undefined, validators, sha256: attempt.sha256, at };
  const settled = settle(spec.name, taken, known, kept);
  files[spec.name] = settled.state;
  return settled.outcome;
}

// A report's rows taken again: its outcome as the pull said it.
function reportAgain(dir: string, spec: NonNullable<ReturnType<typeof portalFile>>, csv: string, at: number) {
  const summary = ingestReport(dir, spec, csv, at);
  const refused = summary.failures.map((f) => f.message).join("; ");
  const changed = summary.hoursAdded + summary.hoursRevised > 0;
  const outcome: FileOutcome = {
    file: spec.name,
    via: "powerbi",
    result: refused !== "" ? "refused" : changed ? "ingested" : "unchanged",
    ...hoursOf(summary),
    ...(refused === "" ? {} : { error: refused }),
  };
  return outcome;
}

/** Rebuilds the store at `dir` from the archive at `archive` (default: `dir`'s own). */
export function replayArchive(dir: string, archive = join(dir, ARCHIVE_DIR)): Replay {
  if (!existsSync(archive)) throw new ReplayError(`There is no archive at ${archive}`);
  const days = loadManifest(dir).size;
  const issues = new ForecastIssues(dir);
  if (issues.index().length > 0 && !issues.sample) {
    throw new ReplayError(
      `${dir} already holds ${issues.index().length} forecast issues: replay into an empty DATA_DIR, ` +
        `e.g. DATA_DIR=${dir}-rebuilt npm run --silent replay-archive -- ${archive}`,
    );
  }
  if (days > 0 && !isSampleStore(dir)) {
    throw new ReplayError(
      `${dir} already holds ${days} days of data: replay into an empty DATA_DIR, ` +
        `e.g. DATA_DIR=${dir}-rebuilt npm run --silent replay-archive -- ${archive}`,
    );
  }
  const own = join(dir, ARCHIVE_DIR);
  // The rebuilt store keeps the archive it came from, so that its next pull continues the log.
  if (resolve(archive) !== resolve(own)) cpSync(archive, own, { recursive: true, errorOnExist: false });
  const { attempts, torn } = readAttempts(own);
  const files: Record<string, FileState> = {};
  const outcomes: Replay["outcomes"] = [];
  let passed = torn;
  for (const attempt of attempts) {
    if (portalFile(attempt.file) === undefined) {
      passed++;
      continue;
    }
    const outcome = retake(dir, own, attempt, files);
    if (outcome !== undefined) outcomes.push({ at: attempt.at, outcome });
  }
  if (Object.keys(files).length > 0) writePullState(dir, { format: 2, files });
  return { outcomes, passed };
}
