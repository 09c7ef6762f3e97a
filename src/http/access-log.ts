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

declare const PLAIN: unique symbol;

/**
 * A text with no character JSON escapes (printable ASCII but `"` and `\`), which a line may write
 * between quotes as it is. The pipeline's own times and request ids are such texts by how they are
 * made; `plainText` checks any other.
 */
export type PlainText = string & { readonly [PLAIN]: true };

/** `text` as a PlainText, or undefined when JSON would escape a character of it. */
export function plainText(text: string): PlainText | undefined {
  return ESCAPED.test(text) ? undefined : (text as PlainText);
}

/** The fields of an access-log line, in the order the line has them; a key appears only as its prefix. */
export interface AccessLogFields {
  readonly time: string;
  readonly request_id: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly duration_ms: number;
  readonly key: string | null;
}

/**
 * One entry of the log, as the pipeline makes it: its time (an ISO instant) and request id (the
 * pipeline's own, or the client's when made of REQUEST_ID's characters) are plain texts, new on
 * each line, which a log writes without searching them.
 */
export interface AccessLogEntry extends AccessLogFields {
  readonly time: PlainText;
  readonly request_id: PlainText;
}

/**
 * The fields as one JSON line (no newline): exactly what `JSON.stringify` writes for an object with
 * these fields in this order, whatever their texts hold. When its texts are printable ASCII without
 * `"` or `\` (the service's request ids, methods, key prefixes and times are, and so is nearly
 * every path), each is written between quotes as it is; otherwise each goes through
 * `JSON.stringify`. `JSON.stringify` of the whole entry was the access log's largest cost
 * (docs/performance.md).
 */
export function accessLogLine(e: AccessLogFields): string {
  // The texts are searched together: one search rather than five.
  const plain = !ESCAPED.test(e.time + e.request_id + e.method + e.path + (e.key ?? ""));
  const text = plain ? quoted : JSON.stringify;
  return (
    `{"time":${text(e.time)},"request_id":${text(e.request_id)},"method":${text(e.method)},` +
    `"path":${text(e.path)},"status":${numeral(e.status)},"duration_ms":${numeral(e.duration_ms)},` +
    `"key":${e.key === null ? "null" : text(e.key)}}`
  );
}

/** The fields' line with its newline. */
export function lineOf(e: AccessLogFields): string {
  return accessLogLine(e) + "\n";
}

/**
 * Makes entries' lines (with their newline) as `lineOf` does, with less work for a log's run of
 * entries. Only the time, the request id and the duration are new on each line: the line's middle
 * (from the method to the duration's name) is made again only when the method, path or status
 * differ from the last line's, and its end (the key) only when the key does, so the texts JSON
 * might escape are searched only then; the plain time and request id are written as they are. A
 * duration in whole microseconds (as the server rounds it) is written from that integer rather
 * than by converting the double.
 */
export function createLineMaker(): (e: AccessLogEntry) => string {
  let method: string | undefined;
  let path: string | undefined;
  let status: number | undefined;
  let middle = "";
  let key: string | null | undefined;
  let end = "";
  return (e) => {
    if (e.method !== method || e.path !== path || e.status !== status) {
      method = e.method;
      path = e.path;
      status = e.status;
      middle =
        `,"method":${jsonText(e.method)},"path":${jsonText(e.path)},` +
        `"status":${numeral(e.status)},"duration_ms":`;
    }
    if (e.key !== key) {
      key = e.key;
      end = `,"key":${e.key === null ? "null" : jsonText(e.key)}}\n`;
    }
    return `{"time":"${e.time}","request_id":"${e.request_id}"${middle}${milliseconds(e.duration_ms)}${end}`;
  };
}

// A character JSON.stringify would write otherwise than as itself: anything but printable ASCII, `"` and `\`.
const ESCAPED = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

// A text as JSON.stringify writes it: between quotes as it is when it holds nothing JSON escapes.
function jsonText(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s) : quoted(s);
}

// A number as JSON.stringify writes it: as String does when finite, else null.
function numeral(n: number): string {
  return Number.isFinite(n) ? String(n) : "null";
}

// The digits after the point of each number of thousandths, 0 to 999, without trailing zeros.
const THOUSANDTHS = Array.from({ length: 1000 }, (_, f) => String(f).padStart(3, "0").replace(/0+$/, ""));

// A duration as numeral writes it. One in whole microseconds below 2^31 (what the server logs) is
// written from that integer: the double nearest whole.fff prints as whole.fff, trailing zeros
// dropped, as no shorter decimal lies within its rounding.
function milliseconds(n: number): string {
  const micros = Math.round(n * 1000);
  if (!(micros >= 0 && micros < 2 ** 31 && micros / 1000 === n)) return numeral(n);
  const whole = Math.floor(micros / 1000);
  const thousandths = micros - whole * 1000;
  return thousandths === 0 ? String(whole) : `${whole}.${THOUSANDTHS[thousandths]}`;
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
  const makeLine = createLineMaker();
  const log = (entry: AccessLogEntry): void => {
    const line = makeLine(entry);
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
