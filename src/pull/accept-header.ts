/**
 * `pull --accept-header FILE`: the operator's way through a changed header. The file's last
 * download was refused because its columns changed; accepting records its header as the file's
 * from now on (the next downloads are compared with it) and ingests that refused download from the
 * archive at once, so nothing the portal published meanwhile is lost. Columns this release does
 * not know are read past, never guessed at; the answer names them.
 */
import { join } from "node:path";
import { fileColumnIndex, SAMPLE_COLUMN, TIMESTAMP_COLUMNS } from "../source/columns.ts";
import { ARCHIVE_DIR, logAttempt, readBody } from "./archive.ts";
import type { PortalFileSpec } from "./portal-files.ts";
import { type FileOutcome, settle } from "./pull.ts";
import { type FileState, readPullState, writePullState } from "./pull-state.ts";
import { takeDownload } from "./take-download.ts";

/** What the acceptance did. */
export interface Acceptance {
  readonly header: readonly string[];
  /** Accepted names this release does not store. */
  readonly ignored: readonly string[];
  /** The refused download, ingested now. */
  readonly outcome: FileOutcome | undefined;
}

/** A refusal that `--accept-header` cannot resolve. */
export class AcceptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AcceptError";
  }
}

// The acceptance's line in the archive's log, so that a replay repeats it.
function logAcceptance(
  archive: string,
  file: string,
  at: number,
  sha256: string | undefined,
  header: readonly string[],
  ignored: readonly string[],
): void {
  logAttempt(archive, {
    at: new Date(at).toISOString(),
    file,
    page: null,
    page_status: null,
    link: null,
    status: null,
    ...(sha256 === undefined ? {} : { sha256 }),
    outcome: "accepted-header",
    header: [...header],
    ...(ignored.length === 0
      ? {}
      : { detail: `not stored (unknown to this release): ${ignored.join(", ")}` }),
  });
}

/**
 * Accepts the changed header of `spec`'s file and ingests its refused download, retaking it with
 * the clock `now`. `accepted` replays a logged acceptance (the replay of the archive).
 */
export function acceptHeader(
  dir: string,
  spec: PortalFileSpec,
  options: { now: () => number; archive?: string; state?: Record<string, FileState>; log?: boolean },
): Acceptance {
  const archive = options.archive ?? join(dir, ARCHIVE_DIR);
  const pullState = options.state === undefined ? readPullState(dir) : undefined;
  const files = options.state ?? pullState!.files;
  const known = files[spec.name] ?? {};
  const refused = known.refused;
  if (refused?.kind !== "header" || refused.header === undefined) {
    throw new AcceptError(
      `${spec.name} has no changed header to accept: its last download was not refused for its columns`,
    );
  }
  const header = refused.header;
  if (!header.some((name) => TIMESTAMP_COLUMNS.has(name))) {
    throw new AcceptError(
      `The new header of ${spec.name} cannot be accepted: it names no timestamp column, so no row can be placed in time`,
    );
  }
  const ignored = header.filter(
    (n) => !TIMESTAMP_COLUMNS.has(n) && n !== SAMPLE_COLUMN && fileColumnIndex(n) < 0,
  );
  const accepted: FileState = { ...known, accepted: header, refused: undefined };
  let outcome: FileOutcome | undefined;
  let state = accepted;
  if (refused.sha256 !== undefined) {
    const body = readBody(archive, refused.sha256);
    const received = {
      body,
      contentType: "text/csv",
      receivedAt: Date.parse(refused.at),
      sha256: refused.sha256,
    };
    const taken = takeDownload(dir, spec, accepted, received, options.now);
    ({ outcome, state } = settle(spec.name, taken, accepted, {
      sha256: refused.sha256,
      at: received.receivedAt,
    }));
  }
  if (options.log !== false)
    logAcceptance(archive, spec.name, options.now(), refused.sha256, header, ignored);
  files[spec.name] = state;
  if (pullState !== undefined) writePullState(dir, pullState);
  return { header, ignored, outcome };
}
