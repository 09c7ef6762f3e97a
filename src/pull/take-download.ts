/**
 * What becomes of a body the pull received for one of the portal's files: refused, with the
 * reason, or ingested. Checked before anything touches the store: a whole body, not an HTML page,
 * the file's known header (or one the operator accepted; the same names in another order or with
 * another delimiter are the same header), at least one row, and then every row as
 * `parsePortalCsv` reads it (bounds, certainty, the future). Used by the pull, by the acceptance
 * of a changed header, and by the replay of the archive.
 */
import { ingestSources, type IngestSummary } from "../ingest/ingest.ts";
import { fileColumnIndex, SAMPLE_COLUMN, TIMESTAMP_COLUMNS } from "../source/columns.ts";
import { headerNamesOf, PortalCsvError } from "../source/portal-csv.ts";
import { ForecastIssues, type IssueEntry } from "../forecasts/forecast-issues.ts";
import { parsePeriodCsv } from "../source/period-csv.ts";
import type { PeriodForm } from "../source/period-forms.ts";
import { PeriodRevisions } from "../store/period-revisions.ts";
import type { PortalFileSpec } from "./portal-files.ts";
import type { FileState, Refusal } from "./pull-state.ts";

/** A body as it arrived. */
export interface Received {
  readonly body: Buffer;
  readonly contentType: string;
  /** When it arrived (UTC ms): no actual value is kept for an hour more than an hour after it. */
  readonly receivedAt: number;
  readonly sha256: string;
}

/** What was done with it. */
export type Taken =
  | { readonly result: "unchanged" }
  | { readonly result: "refused"; readonly refusal: Refusal }
  | { readonly result: "ingested"; readonly summary: IngestSummary; readonly problems: string[] }
  | {
      /** A forecast download: a new issue, or the newest one seen again (`issued: false`). */
      readonly result: "forecast";
      readonly issued: boolean;
      readonly entry: IssueEntry;
      readonly rowsRead: number;
      readonly skipped: IngestSummary["skipped"];
    }
  | {
      /** A file of weeks or months: the periods it added or revised. */
      readonly result: "periods";
      readonly added: number;
      readonly revised: number;
      /** The first day of its newest period (SAST), or null. */
      readonly newest: string | null;
      readonly rowsRead: number;
      readonly skipped: IngestSummary["skipped"];
      readonly skippedFirst: IngestSummary["skippedFirst"];
    };

/** The command that accepts a file's changed header. */
export function acceptCommand(file: string): string {
  return `npm run --silent pull -- --accept-header ${file}`;
}

// How two headers differ, for the operator.
function difference(known: readonly string[], now: readonly string[]): string {
  const added = now.filter((name) => !known.includes(name));
  const removed = known.filter((name) => !now.includes(name));
  const list = (names: string[]) => names.map((n) => `"${n}"`).join(", ");
  return [
    ...(added.length > 0 ? [`added ${list(added)}`] : []),
    ...(removed.length > 0 ? [`removed ${list(removed)}`] : []),
  ].join("; ");
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((name) => b.includes(name));

// Names of an accepted header that this release cannot store: read past, not guessed at.
function unknownNames(header: readonly string[]): Set<string> {
  return new Set(
    header.filter((n) => !TIMESTAMP_COLUMNS.has(n) && n !== SAMPLE_COLUMN && fileColumnIndex(n) < 0),
  );
}

// Why the body is not the file, or undefined when it is.
function check(spec: PortalFileSpec, state: FileState, received: Received, text: string) {
  const refuse = (kind: Refusal["kind"], reason: string, header?: string[]): Refusal => ({
    at: new Date(received.receivedAt).toISOString(),
    kind,
    reason,
    sha256: received.sha256,
    ...(header === undefined ? {} : { header }),
  });
  if (received.body.length === 0) return refuse("content", "the portal answered with an empty body");
  if (/html/i.test(received.contentType) || /^\s*</.test(text)) {
    return refuse("content", "the portal answered with an HTML page (its error page?), not the CSV file");
  }
  const header = headerNamesOf(text);
  // A file of periods is read by its column names: a changed header cannot be accepted, only refused.
  const known = spec.form.target === "periods" ? spec.header : (state.accepted ?? spec.header);
  if (!sameSet(header, known)) {
    return refuse(
      "header",
      `its columns changed (${difference(known, header)}), so nothing of it was stored; ` +
        `if the new columns are right, accept them with: ${acceptCommand(spec.name)}`,
      header,
    );
  }
  if (!/\r?\n\s*\S/.test(text)) {
    return refuse("empty", "it holds its header row only: the portal published no hours");
  }
  return undefined;
}

/**
 * Checks and ingests `received` as `spec`'s file, into the store at `dir`; `state` is the file's
 * remembered state (read only). `now` is the clock revisions are recorded with.
 */
export function takeDownload(
  dir: string,
  spec: PortalFileSpec,
  state: FileState,
  received: Received,
  now: () => number,
): Taken {
  if (state.sha256 === received.sha256) return { result: "unchanged" };
  const text = received.body.toString("utf8");
  const refusal = check(spec, state, received, text);
  if (refusal !== undefined) return { result: "refused", refusal };
  const { form } = spec;
  if (form.target === "periods") return takePeriods(dir, form, received, text);
  const ignore = unknownNames(state.accepted ?? spec.header);
  if (form.target === "forecast-issues") return takeForecast(dir, spec, received, text, ignore);
  const source = { name: spec.name, text, receivedAt: received.receivedAt, ignore, form };
  const summary = ingestSources([{ ...source, fill: spec.fill }], { dir, now });
  const refused = summary.failures.filter((f) => f.kind === "source");
  if (refused.length > 0) {
    const at = new Date(received.receivedAt).toISOString();
    const reason = refused.map((f) => f.message).join("; ");
    return { result: "refused", refusal: { at, kind: "content", reason, sha256: received.sha256 } };
  }
  // A stored day that could not be read is the store's problem, not the file's: its other days landed.
  const problems = summary.failures.map((f) => f.message);
  return { result: "ingested", summary, problems };
}

// A download of Eskom's 3-month forecast: kept as an issue, never as readings.
function takeForecast(
  dir: string,
  spec: PortalFileSpec,
  received: Received,
  text: string,
  ignore: ReadonlySet<string>,
): Taken {
  try {
    const added = new ForecastIssues(dir).add(text, {
      name: spec.name,
      receivedAt: received.receivedAt,
      sha256: received.sha256,
      ignore,
    });
    const { rowsRead, skipped } = added.file;
    return { result: "forecast", issued: added.result === "issued", entry: added.entry, rowsRead, skipped };
  } catch (error) {
    return refusedFor(error, spec.name, received);
  }
}

// A download of a file of weeks or months: what it adds or changes is kept as a revision.
function takePeriods(dir: string, form: PeriodForm, received: Received, text: string): Taken {
  try {
    const file = parsePeriodCsv(text, form.name, { receivedAt: received.receivedAt, form });
    const kept = new PeriodRevisions(dir, form.name).add(file, {
      receivedAt: received.receivedAt,
      sha256: received.sha256,
    });
    return {
      result: "periods",
      added: kept.added,
      revised: kept.revised,
      newest: kept.newest,
      rowsRead: file.rowsRead,
      skipped: file.skipped,
      skippedFirst: Object.fromEntries(
        Object.entries(file.firstLines).map(([reason, line]) => [reason, { file: form.name, line }]),
      ),
    };
  } catch (error) {
    return refusedFor(error, form.name, received);
  }
}

// A file that cannot be read with certainty, or kept, is refused with the reason; anything else is a fault.
function refusedFor(error: unknown, name: string, received: Received): Taken {
  if (!(error instanceof PortalCsvError) && !(error instanceof RangeError)) throw error;
  const at = new Date(received.receivedAt).toISOString();
  const reason = error instanceof PortalCsvError ? error.message : `Cannot keep "${name}": ${error.message}`;
  return { result: "refused", refusal: { at, kind: "content", reason, sha256: received.sha256 } };
}
