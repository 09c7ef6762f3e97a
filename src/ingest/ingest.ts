/**
 * Ingest: portal CSV files in, day files out. Every file is parsed whole before anything is
 * written, so a bad file contributes nothing; the good files of the same call still land. What
 * changes is first appended to the revision history (old values are never lost), then each
 * touched day is rewritten atomically only when its bytes change, and the manifest last, so a
 * killed ingest leaves every file whole and a re-run completes the same store.
 *
 * Generated sample files and real ones never share a store (docs/data.md: "Sample data"): the
 * first real ingest into a sample store removes the whole sample first, and sample files are
 * refused beside real files or into a store that holds real data.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import {
  noneSkipped,
  parsePortalCsv,
  PortalCsvError,
  type PortalFile,
  SKIP_REASONS,
} from "../source/portal-csv.ts";
import type { PortalForm } from "../source/portal-forms.ts";
import { removeStaleTempFiles } from "../files/atomic-write.ts";
import { withLock } from "../files/lock-file.ts";
import { loadManifest, MANIFEST_FILE, READINGS_DIR } from "../store/manifest.ts";
import { type Disagreement, mergeFile } from "./merge.ts";
import {
  clearIngestPending,
  INGEST_LOCK,
  markIngestPending,
  PENDING_INGEST_FILE,
} from "../store/pending-ingest.ts";
import { failpoint } from "../files/failpoint.ts";
import { recordRevisions } from "../store/revisions.ts";
import {
  finishSampleRemoval,
  isSampleStore,
  markSample,
  removeSample,
  SAMPLE_FILE,
  sampleRemovalPending,
} from "../store/sample-mark.ts";
import type { Failures, IngestProgress, IngestSummary } from "./ingest-summary.ts";
import { collectChanges, dayLoader } from "./loaded-days.ts";
import { writeDays } from "./write-days.ts";

export type { IngestProgress, IngestSummary } from "./ingest-summary.ts";

/** A file's text to ingest, as the pull hands it over (`ingestFiles` reads it from a path). */
export interface SourceText {
  /** The file's name, for messages. */
  readonly name: string;
  readonly text: string;
  /** When the text was received (UTC ms): the default is the ingest's clock. */
  readonly receivedAt?: number;
  /** Header names (normalized) not to read: unknown columns an operator accepted. */
  readonly ignore?: ReadonlySet<string>;
  /** The live file it is (the pull knows); by default the one its header names. */
  readonly form?: PortalForm;
  /** A second source: fills hours and columns no other file gave, never replaces a value. */
  readonly fill?: boolean;
  /** Where the text came from: a file (the default), or a PowerBI report, which fills and is marked. */
  readonly origin?: "file" | "powerbi";
  /** A report's columns whose disagreement with a file's is not counted (`merge.ts`). */
  readonly quiet?: readonly string[];
}

/** A parsed file and how it merges. */
interface Parsed {
  readonly file: PortalFile;
  readonly fill: boolean;
  readonly report: boolean;
  readonly quiet?: ReadonlySet<string>;
}

// Every text parsed whole; a refused one goes to `failures` and contributes nothing.
function parseAll(
  sources: readonly (SourceText & { path?: string })[],
  now: () => number,
  failures: Failures,
  onProgress?: IngestProgress,
): Parsed[] {
  const parsed: Parsed[] = [];
  sources.forEach((source, i) => {
    onProgress?.("parse", i, sources.length);
    try {
      const receivedAt = source.receivedAt ?? now();
      const { ignore, form } = source;
      const file = parsePortalCsv(source.text, source.name, { receivedAt, ignore, form });
      if (file.form?.target === "forecast-issues") {
        throw new PortalCsvError(source.name, 1, FORECAST_NOT_READINGS(file.form.name));
      }
      const quiet = source.quiet === undefined ? {} : { quiet: new Set(source.quiet) };
      parsed.push({ file, fill: source.fill ?? false, report: source.origin === "powerbi", ...quiet });
    } catch (error) {
      if (!(error instanceof PortalCsvError)) throw error;
      failures.push({ file: source.path ?? source.name, kind: "source", message: error.message });
    }
  });
  onProgress?.("parse", sources.length, sources.length);
  return parsed;
}

// Why a 3-month forecast is not ingested as readings.
const FORECAST_NOT_READINGS = (name: string) =>
  `this is Eskom's 3-month demand forecast (${name}): its issues are kept apart from readings, ` +
  `so that it never overwrites the week-ahead forecast; the pull keeps them, and ` +
  `npm run forecast-issue -- --issued-at INSTANT FILE adds a download of your own`;

// The files' texts, in order; one that cannot be read is a failure, reported, not thrown.
function readSources(paths: readonly string[], failures: Failures): (SourceText & { path: string })[] {
  const sources: (SourceText & { path: string })[] = [];
  for (const path of paths) {
    try {
      sources.push({ path, name: basename(path), text: readFileSync(path, "utf8") });
    } catch (error) {
      const message = `Cannot read "${basename(path)}": ${(error as Error).message}`;
      failures.push({ file: path, kind: "source", message });
    }
  }
  return sources;
}

/**
 * Keeps sample and real data apart, under the ingest lock: finishes a removal a killed ingest
 * left, refuses sample files beside real data, and removes a sample store's days before real
 * files land. Returns the files to merge, whether the store is a sample one, and the days removed.
 */
function separateSample(dir: string, parsed: readonly Parsed[], failures: Failures) {
  let removed = sampleRemovalPending(dir) ? finishSampleRemoval(dir) : 0;
  const real = parsed.filter(({ file }) => !file.sample);
  const refuse =
    (why: string) =>
    ({ file }: Parsed) =>
      failures.push({
        file: file.name,
        kind: "source",
        message: `Cannot ingest "${file.name}": it is generated sample data, not Eskom's, and ${why}`,
      });
  if (real.length > 0) {
    parsed.filter(({ file }) => file.sample).forEach(refuse("is not ingested with real files"));
    if (isSampleStore(dir)) removed += removeSample(dir);
    return { files: real, sample: false, removed };
  }
  if (parsed.length === 0) return { files: [], sample: isSampleStore(dir), removed };
  if (!isSampleStore(dir) && loadManifest(dir).size > 0) {
    parsed.forEach(refuse("this store holds real data (start from an empty DATA_DIR for a sample)"));
    return { files: [], sample: false, removed };
  }
  markSample(dir);
  return { files: parsed, sample: true, removed };
}

/** What an ingest needs besides its files. */
export interface IngestOptions {
  readonly dir: string;
  readonly onProgress?: IngestProgress;
  /** The clock: when revisions are recorded, and the default time a text was received. */
  readonly now?: () => number;
}

/** Ingests the files at `paths` in order into the store at `dir`. */
export function ingestFiles(paths: readonly string[], options: IngestOptions): IngestSummary {
  const failures: Failures = [];
  const sources = readSources(paths, failures);
  // A file that could not be read keeps its place in the count of files given.
  return ingest(sources, failures, paths.length, options);
}

/** Ingests texts in order (the pull's downloads) into the store at `dir`. */
export function ingestSources(sources: readonly SourceText[], options: IngestOptions): IngestSummary {
  return ingest(sources, [], sources.length, options);
}

function ingest(
  sources: readonly (SourceText & { path?: string })[],
  failures: Failures,
  count: number,
  options: IngestOptions,
): IngestSummary {
  const { dir, onProgress } = options;
  const now = options.now ?? Date.now;
  const readingsDir = join(dir, READINGS_DIR);
  mkdirSync(readingsDir, { recursive: true });
  const parsed = parseAll(sources, now, failures, onProgress);
  const names = sources.map((s) => s.path ?? s.name);

  return withLock(join(dir, INGEST_LOCK), () => {
    removeStaleTempFiles(readingsDir);
    // Only ingest writes the manifest and its two marks, under this lock; other files in DATA_DIR
    // have other writers. A kill inside any of these writes leaves its temp file behind.
    for (const file of [MANIFEST_FILE, PENDING_INGEST_FILE, SAMPLE_FILE]) removeStaleTempFiles(dir, file);
    // Before anything changes: a kill from here on is noticed (pending-ingest.ts).
    markIngestPending(dir, names, now());
    failpoint("ingest:pending-marked");
    const repaired: IngestSummary["repaired"] = [];
    const { files, sample, removed } = separateSample(dir, parsed, failures);
    if (removed > 0) failpoint("ingest:sample-removed");
    mkdirSync(readingsDir, { recursive: true }); // a removed sample took the folder with it
    const { rowsRead, rowsStored, skipped, skippedFirst, newestObserved } = tallyRows(files);
    const loaded = dayLoader(dir, now, failures, repaired);
    const { hoursChanged, disagreements, firstDisagreement } = mergeAll(files, loaded.loadDay);
    const keys = [...loaded.days.keys()].filter((k) => !loaded.corrupt.has(k)).sort();
    const { changes, created, hoursAdded, hoursRevised, firstChanged, lastChanged } = collectChanges(
      keys,
      loaded.days,
    );
    // A change a report made says so in its revision; a file's says nothing (the default).
    const origin = files.some((f) => f.report) ? "powerbi" : undefined;
    recordRevisions(dir, now(), changes, created, origin);
    failpoint("ingest:revisions-recorded");
    const daysWritten = writeDays(dir, keys, loaded, sample, onProgress);
    failpoint("ingest:manifest-written");
    clearIngestPending(dir);
    return {
      files: count,
      rowsRead,
      rowsStored,
      repaired,
      hoursChanged,
      hoursAdded,
      hoursRevised,
      firstChanged,
      lastChanged,
      daysTouched: keys.length,
      daysWritten,
      skipped,
      skippedFirst,
      newestObserved,
      failures,
      sample,
      sampleDaysRemoved: removed,
      disagreements,
      ...(firstDisagreement === undefined ? {} : { firstDisagreement }),
    };
  });
}

// Every file merged in order: the hours changed, and where a report disagreed with a file.
function mergeAll(files: readonly Parsed[], loadDay: Parameters<typeof mergeFile>[1]) {
  let hoursChanged = 0;
  let disagreements = 0;
  let firstDisagreement: Disagreement | undefined;
  for (const { file, fill, report, quiet } of files) {
    const merged = mergeFile(file, loadDay, { fill, report, quiet });
    hoursChanged += merged.changed;
    disagreements += merged.disagreements;
    firstDisagreement ??= merged.firstDisagreement;
  }
  return { hoursChanged, disagreements, firstDisagreement };
}

// The rows of the files merged: read, stored, and skipped by reason with the first line of each.
function tallyRows(files: readonly Parsed[]) {
  const skipped = noneSkipped();
  const skippedFirst: IngestSummary["skippedFirst"] = {};
  let rowsRead = 0;
  let rowsStored = 0;
  let newestObserved: number | null = null;
  for (const { file } of files) {
    rowsRead += file.rowsRead;
    rowsStored += file.rows.length;
    if (file.newestObserved !== null)
      newestObserved = Math.max(newestObserved ?? -Infinity, file.newestObserved);
    for (const reason of SKIP_REASONS) {
      skipped[reason] += file.skipped[reason];
      const line = file.firstLines[reason];
      if (line !== undefined) skippedFirst[reason] ??= { file: file.name, line };
    }
  }
  return { rowsRead, rowsStored, skipped, skippedFirst, newestObserved };
}
