/**
 * The access log: one JSON line per request, as Hono's logger and pino write theirs. A line is
 * `JSON.stringify` of its entry (docs/api.md, "Errors", names the fields), written as the request
 * finishes. Each line is one write: on a pipe shared by a cluster's workers, a write within
 * PIPE_BUF is never interleaved with another process's.
 */

/** One entry of the log, its fields in the order its line has them; a key appears only as its prefix. */
export interface AccessLogEntry {
  readonly time: string;
  readonly request_id: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly duration_ms: number;
  readonly key: string | null;
}

/** The line of an entry, with its newline. */
export function accessLogLine(entry: AccessLogEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/** A log writing each entry's line to `write` (standard output, in the server). */
export function createAccessLog(write: (line: string) => void): (entry: AccessLogEntry) => void {
  return (entry) => write(accessLogLine(entry));
}
