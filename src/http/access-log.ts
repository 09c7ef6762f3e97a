/**
 * The access log: one JSON line per request, `JSON.stringify(entry)` (docs/api.md: "Errors" names
 * the fields), written in batches.
 *
 * Lines are gathered into a batch (docs/performance.md). A batch is written when the next line
 * would take it past its size, and otherwise at most `FLUSH_MS` after its first line, as nginx's
 * `access_log ... buffer= flush=` does; each write gets a buffer of its own, so a stream that
 * writes later (a pipe, a socket) is safe too. Lines are encoded into the batch's buffer as they
 * come. A shutdown flushes what is left.
 */

/** One access-log entry; a key appears only as its prefix. */
export interface AccessLogEntry {
  readonly time: string;
  readonly request_id: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly duration_ms: number;
  readonly key: string | null;
}

/**
 * The entry as one JSON line (no newline): exactly what `JSON.stringify` writes for an entry with
 * these fields in this order. When its texts are printable ASCII without `"` or `\` (the service's
 * request ids, methods, key prefixes and times are, and so is nearly every path), each is written
 * between quotes as it is; otherwise each goes through `JSON.stringify`. `JSON.stringify` of the
 * whole entry was the access log's largest cost (docs/performance.md).
 */
export function accessLogLine(e: AccessLogEntry): string {
  // The texts are searched together: one search rather than five.
  const text = ESCAPED.test(e.time + e.request_id + e.method + e.path + (e.key ?? ""))
    ? JSON.stringify
    : quoted;
  return (
    `{"time":${text(e.time)},"request_id":${text(e.request_id)},"method":${text(e.method)},` +
    `"path":${text(e.path)},"status":${numeral(e.status)},"duration_ms":${numeral(e.duration_ms)},` +
    `"key":${e.key === null ? "null" : text(e.key)}}`
  );
}

// A character JSON.stringify would write otherwise than as itself: anything but printable ASCII, `"` and `\`.
const ESCAPED = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

// A number as JSON.stringify writes it: as String does when finite, else null.
function numeral(n: number): string {
  return Number.isFinite(n) ? String(n) : "null";
}

// A text without a character JSON escapes, as JSON.stringify writes it.
function quoted(s: string): string {
  return `"${s}"`;
}

/** The longest a batch waits for more lines before it is written. */
export const FLUSH_MS = 100;

/** The log of one process: `log` takes an entry, `flush` writes what is gathered now. */
export interface AccessLog {
  readonly log: (entry: AccessLogEntry) => void;
  readonly flush: () => void;
}

/** A log writing its batches to `write` (stdout in the server); `bufferBytes` bounds one batch. */
export function createAccessLog(
  write: (chunk: Buffer) => void,
  bufferBytes = 64 * 1024,
  flushMs = FLUSH_MS,
): AccessLog {
  // The batch's bytes, encoded as each line comes (one buffer per batch, made at its first line).
  let batch: Buffer | undefined;
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (batch === undefined || bytes === 0) return;
    const lines = batch.subarray(0, bytes);
    batch = undefined;
    bytes = 0;
    write(lines);
  };
  const log = (entry: AccessLogEntry): void => {
    const line = lineOf(entry);
    // UTF-8 takes at most three bytes for each UTF-16 unit: a line that fits even so is not measured.
    if (bytes + 3 * line.length > bufferBytes) {
      const size = Buffer.byteLength(line);
      if (bytes + size > bufferBytes) flush();
      if (size > bufferBytes) {
        write(Buffer.from(line)); // longer than a batch: alone
        return;
      }
    }
    batch ??= Buffer.allocUnsafe(bufferBytes);
    bytes += batch.write(line, bytes);
    // The timer keeps no process alive: a shutdown flushes what is left.
    if (timer === undefined) timer = setTimeout(flush, flushMs).unref();
  };
  return { log, flush };
}

/** `e`'s line with its newline. */
export function lineOf(e: AccessLogEntry): string {
  return accessLogLine(e) + "\n";
}
