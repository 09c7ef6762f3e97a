/**
 * The access log: one JSON line per request, the same bytes as `JSON.stringify(entry)` (README:
 * "Errors" names the fields), written in batches.
 *
 * Each line is written into one reused buffer by one call (README: "Performance"); a line with
 * text JSON escapes, text beyond ASCII or an unusual number goes through `JSON.stringify` and
 * UTF-8. A batch is written when the buffer is full, and otherwise at most `FLUSH_MS` after its first
 * line, as nginx's `access_log ... buffer= flush=` does; `write` gets a copy, so a stream that
 * writes later (a pipe, a socket) is safe too. A shutdown flushes what is left.
 */
import { rememberLast } from "../cache/remember-last.ts";

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
  const buffer = Buffer.allocUnsafe(bufferBytes);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (used === 0) return;
    const lines = Buffer.from(buffer.subarray(0, used));
    used = 0;
    write(lines);
  };
  const log = (entry: AccessLogEntry, ownText = false): void => {
    let end = encodeLine(buffer, used, entry, ownText);
    if (end < 0 && used > 0) {
      flush();
      end = encodeLine(buffer, 0, entry, ownText);
    }
    if (end < 0) {
      write(Buffer.from(accessLogLine(entry) + "\n")); // longer than the buffer: alone
      return;
    }
    used = end;
    // The timer keeps no process alive: a shutdown flushes what is left.
    if (timer === undefined) timer = setTimeout(flush, flushMs).unref();
  };
  return { log, flush };
}

/**
 * Writes `e` as one line and its newline into `buffer` from `at`; returns where it ends, or -1 when
 * it does not fit (nothing after `at` is then meaningful).
 *
 * The usual line (its text all printable ASCII without `"` or `\`, its duration in whole
 * microseconds) is joined as one string and written by one call; a character-by-character copy
 * in JavaScript costs more, mostly in reading the joined-up strings V8 keeps in pieces. Each text
 * is checked by a regular-expression test, unless it is its field's last text (a poll repeats
 * its method, path and key: the same strings) or `ownText` vouches for it (the time and request
 * id; see `AccessLog`). Testing a string V8 keeps in pieces first copies it into one, through a
 * runtime call. Any other line is written as `JSON.stringify` writes it, in UTF-8.
 */
export function encodeLine(buffer: Buffer, at: number, e: AccessLogEntry, ownText = false): number {
  const duration = durationText(e.duration_ms);
  const plain =
    duration !== undefined &&
    Number.isInteger(e.status) &&
    (ownText || (isPlain(e.time) && isPlain(e.request_id))) &&
    plainMethod(e.method) &&
    plainPath(e.path) &&
    (e.key === null || plainKey(e.key));
  const line = plain
    ? `{"time":"${e.time}","request_id":"${e.request_id}","method":"${e.method}","path":"${e.path}","status":${e.status},"duration_ms":${duration},"key":${e.key === null ? "null" : `"${e.key}"`}}\n`
    : accessLogLine(e) + "\n";
  const length = plain ? line.length : Buffer.byteLength(line);
  if (at < 0 || at + length > buffer.length) return -1;
  return at + buffer.write(line, at, plain ? "latin1" : "utf8");
}

// What JSON escapes or writes beyond ASCII: control characters, `"`, `\`, and anything above `~`.
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

function isPlain(text: string): boolean {
  return !NEEDS_ESCAPE.test(text);
}

// A poll repeats its method, path and key: each field remembers its last text's answer.
const plainMethod = rememberLast(isPlain);
const plainPath = rememberLast(isPlain);
const plainKey = rememberLast(isPlain);

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
