/**
 * The access log: one JSON line per request, the same bytes as `JSON.stringify(entry)` (docs/api.md:
 * "Errors" names the fields), written in batches.
 *
 * Lines are gathered into a batch (docs/performance.md); a line with text JSON escapes, text
 * beyond ASCII or an unusual number is `JSON.stringify`'s, in UTF-8. A batch is written when the
 * next line would take it past its size, and otherwise at most `FLUSH_MS` after its first line, as
 * nginx's `access_log ... buffer= flush=` does; each write gets a buffer of its own, so a stream
 * that writes later (a pipe, a socket) is safe too. A shutdown flushes what is left.
 */
import { rememberLast } from "../cache/remember-last.ts";
import { inOnePiece } from "./one-piece.ts";

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

/** The entry as one JSON line (no newline): the fields in this order, as `JSON.stringify` writes them. */
export function accessLogLine(e: AccessLogEntry): string {
  return JSON.stringify({
    time: e.time,
    request_id: e.request_id,
    method: e.method,
    path: e.path,
    status: e.status,
    duration_ms: e.duration_ms,
    key: e.key,
  });
}

/** The longest a batch waits for more lines before it is written. */
export const FLUSH_MS = 100;

/**
 * The log of one process: `log` takes an entry, `flush` writes what is gathered now. `ownText`:
 * the entry's time and request id were made by the pipeline from characters JSON writes as they
 * are (an ISO time; an id of `[A-Za-z0-9._:-]`), so they are not checked again.
 */
export interface AccessLog {
  readonly log: (entry: AccessLogEntry, ownText?: boolean) => void;
  readonly flush: () => void;
}

/** A log writing its batches to `write` (stdout in the server); `bufferBytes` bounds one batch. */
export function createAccessLog(
  write: (chunk: Buffer) => void,
  bufferBytes = 64 * 1024,
  flushMs = FLUSH_MS,
): AccessLog {
  // The batch is kept as one string of joined lines, encoded once when written: V8 joins strings
  // as pairs of pieces, so adding a line copies nothing, and the batch is copied into one piece
  // once for all its lines (docs/performance.md).
  let batch = "";
  let bytes = 0;
  let ascii = true;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (bytes === 0) return;
    const lines = Buffer.from(batch, ascii ? "latin1" : "utf8");
    batch = "";
    bytes = 0;
    ascii = true;
    write(lines);
  };
  const log = (entry: AccessLogEntry, ownText = false): void => {
    const plain = plainLine(entry, ownText);
    const line = plain ?? accessLogLine(entry) + "\n";
    const size = plain !== undefined ? plain.length : Buffer.byteLength(line);
    if (bytes + size > bufferBytes) flush();
    if (size > bufferBytes) {
      write(Buffer.from(line)); // longer than a batch: alone
      return;
    }
    batch += line;
    bytes += size;
    if (plain === undefined) ascii = false;
    // The timer keeps no process alive: a shutdown flushes what is left.
    if (timer === undefined) timer = setTimeout(flush, flushMs).unref();
  };
  return { log, flush };
}

/**
 * `e`'s line with its newline, the same text as `accessLogLine(e) + "\n"`.
 *
 * The usual line (its texts all printable ASCII without `"` or `\\`, its duration in whole
 * microseconds) is joined from few pieces, each made once while it repeats: the method, path
 * and status as one, and the key with the line's end as another; a batch is cheaper to copy into
 * one piece the fewer pieces it has. Any other line is `JSON.stringify`'s, written in UTF-8.
 */
export function lineOf(e: AccessLogEntry, ownText = false): string {
  return plainLine(e, ownText) ?? accessLogLine(e) + "\n";
}

/**
 * The usual line (see `lineOf`), or undefined. Each text is checked by a regular-expression test
 * unless `ownText` vouches for it (the time and request id; see `AccessLog`) or it is its piece's
 * last text: a poll repeats its method, path and key, the same strings.
 */
function plainLine(e: AccessLogEntry, ownText: boolean): string | undefined {
  const duration = durationText(e.duration_ms);
  if (
    duration === undefined ||
    !Number.isInteger(e.status) ||
    !(ownText || (isPlain(e.time) && isPlain(e.request_id)))
  ) {
    return undefined;
  }
  const middle = middleOf(e.method, e.path, e.status);
  const end = endOf(e.key);
  if (middle === undefined || end === undefined) return undefined;
  return `{"time":"${e.time}","request_id":"${e.request_id}${middle}${duration}${end}`;
}

// `","method":"GET","path":"/p","status":200,"duration_ms":` in one piece, made once while the
// method, path and status repeat; undefined when the method or path is not plain.
let lastMethod: string | undefined;
let lastPath: string | undefined;
let lastStatus = NaN;
let middleText: string | undefined;
function middleOf(method: string, path: string, status: number): string | undefined {
  if (method !== lastMethod || path !== lastPath || status !== lastStatus) {
    lastMethod = method;
    lastPath = path;
    lastStatus = status;
    middleText =
      isPlain(method) && isPlain(path)
        ? inOnePiece(
            '","method":"',
            method,
            '","path":"',
            path,
            '","status":',
            String(status),
            ',"duration_ms":',
          )
        : undefined;
  }
  return middleText;
}

// `,"key":"gds_abcd"}` or `,"key":null}` and the newline in one piece, made once while the key
// repeats; undefined when the key is not plain.
const endOf = rememberLast((key: string | null): string | undefined => {
  if (key === null) return ',"key":null}\n';
  return isPlain(key) ? inOnePiece(',"key":"', key, '"}\n') : undefined;
});

// What JSON escapes or writes beyond ASCII: control characters, `"`, `\`, and anything above `~`.
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

function isPlain(text: string): boolean {
  return !NEEDS_ESCAPE.test(text);
}

// `.sss` for each number of milliseconds, as JSON writes a number: trailing zeros dropped.
const FRACTIONS = Array.from({ length: 1000 }, (_, f) =>
  f === 0 ? "" : `.${String(f).padStart(3, "0").replace(/0+$/, "")}`,
);

// A duration as JSON.stringify writes it, when it is in whole microseconds (the log's
// `duration_ms` has three decimals) below 2^43 µs: m / 1000 is then printed as the digits of m
// with the point put back, the shortest decimal that reads back as the same double (the proof is
// in the test). Undefined for anything else, which JSON.stringify writes.
function durationText(value: number): string | undefined {
  const micros = Math.round(value * 1000);
  if (!(micros >= 0 && micros < 2 ** 43 && micros / 1000 === value)) return undefined;
  const whole = Math.floor(micros / 1000);
  return `${whole}${FRACTIONS[micros - whole * 1000]!}`;
}
