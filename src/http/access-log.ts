/**
 * The access log: one JSON line per request, the same bytes as `JSON.stringify(entry)` (README:
 * "Errors" names the fields), written in batches.
 *
 * Each line is encoded straight into one reused buffer: plain ASCII text byte by byte, numbers
 * digit by digit, with no string of the line built and flattened first (README: "Performance").
 * Text with a character JSON escapes or a non-ASCII one goes through `JSON.stringify` and UTF-8.
 * A batch is written when the buffer is full, and otherwise at most `FLUSH_MS` after its first
 * line, as nginx's `access_log ... buffer= flush=` does; `write` gets a copy, so a stream that
 * writes later (a pipe, a socket) is safe too. A shutdown flushes what is left.
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
  const log = (entry: AccessLogEntry): void => {
    let end = encodeLine(buffer, used, entry);
    if (end < 0 && used > 0) {
      flush();
      end = encodeLine(buffer, 0, entry);
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

const FIELD_TIME = bytes('{"time":');
const FIELD_REQUEST_ID = bytes(',"request_id":');
const FIELD_METHOD = bytes(',"method":');
const FIELD_PATH = bytes(',"path":');
const FIELD_STATUS = bytes(',"status":');
const FIELD_DURATION = bytes(',"duration_ms":');
const FIELD_KEY = bytes(',"key":');
const NULL = bytes("null");
const CLOSE = 0x7d; // }
const NEWLINE = 0x0a;

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/**
 * Writes `e` as one line and its newline into `buffer` from `at`; returns where it ends, or -1 when
 * it does not fit (nothing after `at` is then meaningful).
 */
export function encodeLine(buffer: Buffer, at: number, e: AccessLogEntry): number {
  let i = put(buffer, at, FIELD_TIME);
  i = text(buffer, i, e.time);
  i = put(buffer, i, FIELD_REQUEST_ID);
  i = text(buffer, i, e.request_id);
  i = put(buffer, i, FIELD_METHOD);
  i = text(buffer, i, e.method);
  i = put(buffer, i, FIELD_PATH);
  i = text(buffer, i, e.path);
  i = put(buffer, i, FIELD_STATUS);
  i = number(buffer, i, e.status);
  i = put(buffer, i, FIELD_DURATION);
  i = number(buffer, i, e.duration_ms);
  i = put(buffer, i, FIELD_KEY);
  i = e.key === null ? put(buffer, i, NULL) : text(buffer, i, e.key);
  if (i < 0 || i + 2 > buffer.length) return -1;
  buffer[i] = CLOSE;
  buffer[i + 1] = NEWLINE;
  return i + 2;
}

function put(buffer: Buffer, at: number, piece: Uint8Array): number {
  if (at < 0 || at + piece.length > buffer.length) return -1;
  for (let j = 0; j < piece.length; j++) buffer[at + j] = piece[j]!;
  return at + piece.length;
}

// A string as JSON: quoted byte by byte while it is printable ASCII without `"` or `\`; otherwise
// as JSON.stringify writes it, in UTF-8.
function text(buffer: Buffer, at: number, value: string): number {
  if (at < 0 || at + value.length + 2 > buffer.length) return -1;
  buffer[at] = 0x22;
  for (let j = 0; j < value.length; j++) {
    const c = value.charCodeAt(j);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return escaped(buffer, at, value);
    buffer[at + 1 + j] = c;
  }
  buffer[at + 1 + value.length] = 0x22;
  return at + value.length + 2;
}

function escaped(buffer: Buffer, at: number, value: string): number {
  const json = JSON.stringify(value);
  if (at + Buffer.byteLength(json) > buffer.length) return -1;
  return at + buffer.write(json, at);
}

// A number as JSON.stringify writes it. Whole numbers and durations in whole microseconds (the
// log's `duration_ms` has three decimals) are written digit by digit; anything else by String().
function number(buffer: Buffer, at: number, value: number): number {
  if (at < 0) return -1;
  const micros = Math.round(value * 1000);
  // Below 2^43 µs, m / 1000 is printed as the digits of m with the point put back: the shortest
  // decimal that reads back as the same double (the proof is in the test).
  if (micros >= 0 && micros < 2 ** 43 && micros / 1000 === value) {
    const whole = Math.floor(micros / 1000);
    let fraction = micros - whole * 1000;
    const i = digits(buffer, at, whole);
    if (fraction === 0 || i < 0) return i;
    let places = 3;
    while (fraction % 10 === 0) {
      fraction /= 10;
      places--;
    }
    if (i + 1 + places > buffer.length) return -1;
    buffer[i] = 0x2e;
    for (let p = places; p > 0; p--) {
      buffer[i + p] = 0x30 + (fraction % 10);
      fraction = Math.floor(fraction / 10);
    }
    return i + 1 + places;
  }
  const written = String(value); // JSON writes NaN and the infinities as null
  const json = Number.isFinite(value) ? written : "null";
  if (at + json.length > buffer.length) return -1;
  return at + buffer.write(json, at, "latin1");
}

// A whole number below 2^43, in decimal.
function digits(buffer: Buffer, at: number, value: number): number {
  let length = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) length++;
  if (at + length > buffer.length) return -1;
  let rest = value;
  for (let p = at + length - 1; p >= at; p--) {
    buffer[p] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + length;
}
