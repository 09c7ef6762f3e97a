/**
 * The access log: one JSON line per request, `JSON.stringify(entry)` (docs/api.md: "Errors" names
 * the fields), written in batches.
 *
 * Lines are gathered into a batch (docs/performance.md). A batch is written when the next line
 * would take it past its size, and otherwise at most `FLUSH_MS` after its first line, as nginx's
 * `access_log ... buffer= flush=` does; each write gets a buffer of its own, so a stream that
 * writes later (a pipe, a socket) is safe too. Lines are encoded into the batch's buffer a few
 * dozen at a time. A shutdown flushes what is left.
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

/**
 * One entry of the log, its fields in the order its line has them; a key appears only as its
 * prefix. Its time (an ISO instant) and request id (the pipeline's own, or the client's when made of
 * REQUEST_ID's characters) are plain texts, new on each line, which a log writes without searching
 * them.
 */
export interface AccessLogEntry {
  readonly time: PlainText;
  readonly request_id: PlainText;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly duration_ms: number;
  readonly key: string | null;
}

/**
 * Makes entries' lines (with their newline): exactly what `JSON.stringify` writes for the entry,
 * with less work for a log's run of entries (`JSON.stringify` of each entry was the access log's
 * largest cost, docs/performance.md). Only the time, the request id and the duration are new on
 * each line: the line's middle (from the method to the duration's name) is made again only when
 * the method, path or status differ from the last line's, and its end (the key) only when the key
 * does, so the texts JSON might escape are searched only then, and such a text goes through
 * `JSON.stringify`; the plain time and request id are written as they are. A duration in whole
 * microseconds (as the server rounds it) is written from that integer rather than by converting
 * the double.
 */
export class LineMaker {
  #method: string | undefined;
  #path: string | undefined;
  #status: number | undefined;
  #middle = "";
  #middlePlain = true;
  #key: string | null | undefined;
  #end = "";
  #endPlain = true;

  /** Whether the last line made is printable ASCII only (so its UTF-8 bytes are its characters). */
  get plain(): boolean {
    return this.#middlePlain && this.#endPlain;
  }

  line(e: AccessLogEntry): string {
    if (e.method !== this.#method || e.path !== this.#path || e.status !== this.#status) {
      this.#method = e.method;
      this.#path = e.path;
      this.#status = e.status;
      this.#middlePlain = !ESCAPED.test(e.method + e.path);
      const text = this.#middlePlain ? quoted : JSON.stringify;
      this.#middle = `,"method":${text(e.method)},"path":${text(e.path)},"status":${numeral(e.status)},"duration_ms":`;
    }
    if (e.key !== this.#key) {
      this.#key = e.key;
      this.#endPlain = e.key === null || !ESCAPED.test(e.key);
      this.#end = `,"key":${e.key === null ? "null" : this.#endPlain ? quoted(e.key) : JSON.stringify(e.key)}}\n`;
    }
    return `{"time":"${e.time}","request_id":"${e.request_id}"${this.#middle}${milliseconds(e.duration_ms)}${this.#end}`;
  }
}

// A character JSON.stringify would write otherwise than as itself: anything but printable ASCII, `"` and `\`.
const ESCAPED = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

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

/** How many lines are joined and encoded into a batch at once. */
const ENCODE_LINES = 32;

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
  // The batch's bytes (one buffer per batch, made at its first line). Lines are encoded into it a
  // few at a time, joined: one copy and one call for them rather than one of each per line, while
  // few enough wait that they are gone before the young generation's next collection.
  let batch: Buffer | undefined;
  let bytes = 0;
  const waiting: string[] = [];
  let waitingBytes = 0;
  let waitingPlain = true;
  let timer: NodeJS.Timeout | undefined;
  const encodeWaiting = (): void => {
    if (waiting.length === 0) return;
    batch ??= Buffer.allocUnsafe(bufferBytes);
    // Printable ASCII is the same bytes in Latin-1, which copies them as they are.
    bytes += batch.write(waiting.join(""), bytes, waitingPlain ? "latin1" : "utf8");
    waiting.length = 0;
    waitingBytes = 0;
    waitingPlain = true;
  };
  const flush = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    encodeWaiting();
    if (batch === undefined || bytes === 0) return;
    const lines = batch.subarray(0, bytes);
    batch = undefined;
    bytes = 0;
    write(lines);
  };
  const maker = new LineMaker();
  const log = (entry: AccessLogEntry): void => {
    const line = maker.line(entry);
    const plain = maker.plain;
    const size = plain ? line.length : Buffer.byteLength(line);
    if (bytes + waitingBytes + size > bufferBytes) flush();
    if (size > bufferBytes) {
      write(Buffer.from(line)); // longer than a batch: alone
      return;
    }
    waiting.push(line);
    waitingBytes += size;
    waitingPlain &&= plain;
    if (waiting.length === ENCODE_LINES) encodeWaiting();
    // The timer keeps no process alive: a shutdown flushes what is left.
    if (timer === undefined) timer = setTimeout(flush, flushMs).unref();
  };
  return { log, flush };
}
