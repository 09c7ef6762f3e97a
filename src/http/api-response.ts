/**
 * The server's response class: headers the pipeline decides before a writer runs (the request id,
 * `nosniff`, the RateLimit fields, CORS) wait here and go out with whatever head the writer writes,
 * in that one `writeHead` call. `setHeader` would store and validate each of them once, then again
 * when the writer's own headers are merged in (README: "Performance").
 *
 * A header the writer also names replaces the waiting one, except `Vary`, whose values are joined
 * (`Vary: Origin, Accept, Accept-Encoding`). A head node:http refuses leaves the waiting headers
 * for the next one, so the error's answer still carries the request id. Used by
 * `hardened-server.ts` through `node:http`'s `ServerResponse` option; `addHeader` works on any
 * response, falling back to `setHeader`.
 *
 * The head is written as node:http would write it, but cheaper (README: "Performance"). node:http
 * checks each header on its own: two regular-expression tests, a lower-cased copy of the name and
 * four string joins, about 1,300 instructions a header, most of it the calls' own overhead. Here
 * the leading headers that node:http has no rule for (every one but Content-Length, Connection,
 * Transfer-Encoding, Date, Expect, Trailer, Keep-Alive and Content-Disposition) are checked
 * against node:http's own rules more cheaply: each name once per process, and a value only when it
 * is not the name's last good one and its adder did not vouch for it (`addHeader`'s `checked`).
 * They are then written as lines after the status line, through node:http's internal
 * `_storeHeader(statusLine, headers)`, and the rest go through node:http as before, in the same
 * order. The waiting headers and the writer's are merged only when a name repeats; otherwise they
 * are walked as one list. When the check fails, or headers were set with `setHeader`, every header
 * goes through node:http, which throws its own error for a bad one. `test/api-response.test.ts`
 * checks the bytes are node:http's own.
 */
import {
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  ServerResponse,
  validateHeaderName,
} from "node:http";
import { inOnePiece } from "./one-piece.ts";

type HeaderValue = number | string | readonly string[];

export class ApiResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The waiting headers as one flat [name, value, ...] list, in the order they were added. */
  #waiting: HeaderValue[] | null = null;
  /** Which waiting entries (bit i for entry i) hold a value its adder vouched for (`wait`'s `checked`). */
  #vouched = 0;
  /** A bit for each length of the waiting names (`lengthBit`): a new name's length is mostly new. */
  #lengths = 0;
  /** Header lines already checked, for `_storeHeader` to put after the status line. */
  #checkedLines = "";
  /** Whether `setHeader` (or `appendHeader`) was used: node:http then merges the head itself. */
  #progressive = false;

  override setHeader(name: string, value: number | string | readonly string[]): this {
    this.#progressive = true;
    return super.setHeader(name, value);
  }

  override appendHeader(name: string, value: string | readonly string[]): this {
    this.#progressive = true;
    return super.appendHeader(name, value);
  }

  /**
   * Adds a header to the head this response will write; a later one of the same name replaces it.
   * `checked`: the adder made the value from characters node:http's value rule allows (a request
   * id, a count), so it is written without being tested again.
   */
  wait(name: string, value: HeaderValue, checked = false): void {
    // Too late once the head is out: setHeader throws ERR_HTTP_HEADERS_SENT, as it should.
    if (this.headersSent) {
      this.setHeader(name, value);
      return;
    }
    const waiting = (this.#waiting ??= []);
    const bit = lengthBit(name);
    let entry: number;
    if ((this.#lengths & bit) === 0) {
      this.#lengths |= bit;
      entry = waiting.push(name, value) / 2 - 1;
    } else entry = add(waiting, name, value) >> 1;
    if (entry >= 0 && entry < VOUCHED_MAX)
      this.#vouched = checked ? this.#vouched | (1 << entry) : this.#vouched & ~(1 << entry);
  }

  /** The waiting value of a header, if any (for tests and writers that combine values). */
  waiting(name: string): HeaderValue | undefined {
    const waiting = this.#waiting ?? [];
    const at = indexOfName(waiting, name);
    return at >= 0 ? waiting[at + 1] : undefined;
  }

  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const message = typeof reason === "string" ? reason : undefined;
    let given = typeof reason === "string" ? headers : reason;
    const waiting = this.#waiting;
    const vouched = this.#vouched;
    const lengths = this.#lengths;
    this.#waiting = null;
    this.#vouched = 0;
    this.#lengths = 0;
    const checking = !this.#progressive && !this.headersSent;
    let checked: Checked | undefined;
    // The waiting headers as they were, for a head that node:http refuses (the merge changes the list).
    let kept = waiting;
    if (waiting === null) {
      if (checking && Array.isArray(given)) checked = checkLines(given, NONE, 0, false);
    } else {
      // The usual case, the writer's flat list naming none of the waiting headers, needs no merge.
      if (checking && isFlat(given)) checked = checkLines(waiting, given, vouched, true);
      if (checked === undefined) {
        kept = waiting.slice();
        const left = merge(waiting, lengths, given, vouched);
        given = waiting as OutgoingHttpHeader[];
        if (checking) checked = checkLines(waiting, NONE, left, false);
      }
    }
    if (checked !== undefined) {
      this.#checkedLines = checked.lines;
      given = checked.rest;
    }
    try {
      return message === undefined
        ? super.writeHead(statusCode, given)
        : super.writeHead(statusCode, message, given);
    } catch (error) {
      // Refused (a bad value, a bad status): the waiting headers wait for the next head, the error's.
      if (kept !== null && !this.headersSent && this.#waiting === null) {
        this.#waiting = kept;
        this.#vouched = vouched;
        this.#lengths = lengths;
      }
      throw error;
    } finally {
      this.#checkedLines = "";
    }
  }

  /** node:http's own (internal) step that builds the head from the status line and headers. */
  _storeHeader(firstLine: string, headers: unknown): void {
    storeHeader.call(this, firstLine + this.#checkedLines, headers);
  }
}

// node:http's internal method on every outgoing message (see the class's comment).
const storeHeader = (
  ServerResponse.prototype as unknown as {
    _storeHeader?: (this: ServerResponse, firstLine: string, headers: unknown) => void;
  }
)._storeHeader!;
if (typeof storeHeader !== "function") {
  throw new Error("node:http's OutgoingMessage#_storeHeader is missing: this Node is not supported");
}

// The names node:http reads a value of (content-disposition: it may re-encode the value).
const NODE_RULES = new Set([
  "connection",
  "transfer-encoding",
  "content-length",
  "date",
  "expect",
  "trailer",
  "keep-alive",
  "content-disposition",
]);

// node:http's own rule for a header value, the one `validateHeaderValue` applies: a tab, a space,
// a visible ASCII character or one from 0x80 to 0xff.
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * What is known of one header name: whether its lines may be checked here, its last good value
 * and that value's line (`Name: value\r\n`, made once while the value repeats).
 */
interface NameState {
  readonly plain: boolean;
  readonly prefix: string;
  /** A bit of its own for the name in any case (`bitOf`), or 0. */
  readonly bit: number;
  lastValue: string | undefined;
  lastLine: string;
  /** The last run of remembered lines this name's line was added to (`afterRun`), and the result. */
  afterRun: string;
  afterLine: string;
  run: string;
}

// Names are constants of the code: a few, each checked once against node:http's own token rule.
// Bounded all the same, should a writer make names up.
const names = new Map<string, NameState>();
function stateOf(name: string): NameState {
  let state = names.get(name);
  if (state === undefined) {
    let plain = !NODE_RULES.has(name.toLowerCase());
    try {
      validateHeaderName(name);
    } catch {
      plain = false;
    }
    state = {
      plain,
      prefix: `${name}: `,
      bit: bitOf(name.toLowerCase()),
      lastValue: undefined,
      lastLine: "",
      afterRun: "",
      afterLine: "",
      run: "",
    };
    if (names.size >= 1000) names.clear();
    names.set(name, state);
  }
  return state;
}

// The first 30 names seen (lower-cased) each have a bit, to tell at once whether a head names one
// twice; a later name has none (0) and is looked for among the head's earlier names instead.
const nameBits = new Map<string, number>();
function bitOf(lower: string): number {
  let bit = nameBits.get(lower);
  if (bit === undefined) {
    bit = nameBits.size < 30 ? 1 << nameBits.size : 0;
    if (bit !== 0) nameBits.set(lower, bit);
  }
  return bit;
}

// The state of the name at each place of the last heads: a head's names are the same constants
// in the same places from one response to the next, and comparing one is cheaper than hashing it.
const PLACES = 32;
const placeNames: (string | undefined)[] = Array.from({ length: PLACES }, () => undefined);
const placeStates: (NameState | undefined)[] = Array.from({ length: PLACES }, () => undefined);
function stateAt(place: number, name: string): NameState {
  if (place < PLACES && placeNames[place] === name) return placeStates[place]!;
  const state = stateOf(name);
  if (place < PLACES) {
    placeNames[place] = name;
    placeStates[place] = state;
  }
  return state;
}

const NONE: readonly HeaderValue[] = [];

/** What `checkLines` found: how many leading entries (times two) it wrote as lines, and what is left for node:http. */
interface Checked {
  count: number;
  lines: string;
  rest: OutgoingHttpHeader[] | undefined;
}
const checked: Checked = { count: 0, lines: "", rest: undefined };

// A flat [name, value, ...] list: an array whose first entry is not itself an array.
function isFlat(
  given: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined,
): given is OutgoingHttpHeader[] {
  return Array.isArray(given) && !(given.length > 0 && Array.isArray(given[0]));
}

/**
 * The leading entries of two flat [name, value, ...] lists taken as one (`first`, then `second`)
 * that can be written as checked lines, those lines, and the rest for node:http; no lines when a
 * value has a character node:http would refuse. With `distinct` (the waiting headers, then the
 * writer's) the answer is undefined when a name repeats or a value is left out, so the caller
 * merges them first; without it, `second` is empty and repeats are node:http's to write. A value
 * the same as the name's last good one is not tested again and its line is reused: most are the
 * same strings each time (an ETag's text, the Vary text, this second's Cache-Control), and a test
 * is mostly its call's own cost. A value vouched for (bit i of `vouched` for entry i) is neither compared nor
 * tested: it differs on every response (the request id, the RateLimit count), and V8 compares and
 * tests such joined-up strings through a runtime call that first copies them into one piece.
 *
 * Consecutive remembered lines are joined into one run, itself remembered (see `extend`), so a
 * repeated head is a few strings in one piece rather than dozens: node:http copies the head into
 * one piece before writing it, and that copy walks every piece. The answer is one object reused
 * from call to call.
 */
function checkLines(
  first: readonly HeaderValue[],
  second: readonly HeaderValue[],
  vouched: number,
  distinct: boolean,
): Checked | undefined {
  if (distinct && second.length % 2 !== 0) return undefined;
  const total = first.length + second.length;
  let lines = "";
  let run = "";
  let seen = 0;
  let count = -1; // where the lines stop, once known
  let n = 0;
  for (; n < total - 1; n += 2) {
    if (count >= 0 && !distinct) break;
    const inFirst = n < first.length;
    const name = inFirst ? first[n] : second[n - first.length];
    const value = inFirst ? first[n + 1] : second[n + 1 - first.length];
    if (typeof name !== "string") {
      if (distinct) return undefined;
      count = n;
      continue;
    }
    const state = stateAt(n >> 1, name);
    if (distinct) {
      // A name twice or a value left out: node:http's merge decides.
      if (value === undefined) return undefined;
      if (state.bit === 0 ? namedBefore(first, second, n, name) : (seen & state.bit) !== 0) return undefined;
      seen |= state.bit;
      if (count >= 0) continue; // past the lines: only the names are looked at
    }
    if (!state.plain || (typeof value !== "string" && typeof value !== "number")) {
      count = n;
    } else if (typeof value === "number" || (n >> 1 < VOUCHED_MAX && (vouched & (1 << (n >> 1))) !== 0)) {
      lines += `${run}${state.prefix}${value}\r\n`;
      run = "";
    } else if (value === state.lastValue) {
      run = extend(run, state);
    } else if (BAD_VALUE_CHAR.test(value)) {
      count = 0;
    } else {
      state.lastValue = value;
      state.lastLine = inOnePiece(state.prefix, value, "\r\n");
      run = extend(run, state);
    }
  }
  if (count < 0) count = n;
  checked.count = count;
  checked.lines = count === 0 ? "" : lines + run;
  checked.rest = restOf(first, second, count);
  return checked;
}

// Whether the two lists, as one, name `name` before place `n` (for a name without a bit).
function namedBefore(
  first: readonly HeaderValue[],
  second: readonly HeaderValue[],
  n: number,
  name: string,
): boolean {
  for (let i = 0; i < n; i += 2) {
    const earlier = i < first.length ? first[i] : second[i - first.length];
    if (typeof earlier === "string" && sameName(earlier, name)) return true;
  }
  return false;
}

// The entries of the two lists from `count` on (the combined list's places), for node:http.
function restOf(
  first: readonly HeaderValue[],
  second: readonly HeaderValue[],
  count: number,
): OutgoingHttpHeader[] | undefined {
  if (count >= first.length + second.length) return undefined;
  if (count === 0 && second.length === 0) return first as OutgoingHttpHeader[];
  if (count >= first.length) return second.slice(count - first.length) as OutgoingHttpHeader[];
  return first.slice(count).concat(second) as OutgoingHttpHeader[];
}

/**
 * `run` (a string made here, or "") followed by the name's last line, in one piece: remembered
 * per name while the run and the line are the same strings, as they are on a repeated head.
 */
function extend(run: string, state: NameState): string {
  if (run === "") return state.lastLine;
  if (run !== state.afterRun || state.lastLine !== state.afterLine) {
    state.afterRun = run;
    state.afterLine = state.lastLine;
    state.run = inOnePiece(run, state.lastLine);
  }
  return state.run;
}

// Entries of a waiting list that can be vouched for, one bit each.
const VOUCHED_MAX = 31;

/**
 * Adds the writer's headers to the waiting ones: same names replace, except Vary, which joins.
 * `waiting` is this response's own list, used up here: it becomes the whole list. Returns
 * `vouched` less the entries whose values were replaced.
 *
 * A name is looked for in the list only when a name of its length is there already (`lengths`,
 * the waiting names' bits as `wait` kept them): a head's names mostly differ in length, and most
 * given names are new.
 */
function merge(
  waiting: HeaderValue[],
  lengths: number,
  given: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined,
  vouched: number,
): number {
  if (given === undefined) return vouched;
  const flat = flatList(given);
  for (let i = 0; i < flat.length - 1; i += 2) {
    const name = flat[i];
    const value = flat[i + 1];
    if (value === undefined) continue;
    if (typeof name !== "string") {
      waiting.push(name as HeaderValue, value); // not a name: node:http refuses it, as it would
      continue;
    }
    const bit = lengthBit(name);
    if ((lengths & bit) === 0) {
      lengths |= bit;
      waiting.push(name, value);
    } else {
      const at = add(waiting, name, value) >> 1;
      if (at < VOUCHED_MAX) vouched &= ~(1 << at);
    }
  }
  return vouched;
}

// A writer's headers as one flat [name, value, ...] list (node:http takes three forms).
function flatList(given: OutgoingHttpHeaders | OutgoingHttpHeader[]): readonly (HeaderValue | undefined)[] {
  if (!Array.isArray(given)) {
    const flat: (HeaderValue | undefined)[] = [];
    for (const name in given) flat.push(name, given[name]);
    return flat;
  }
  if (given.length > 0 && Array.isArray(given[0])) return (given as unknown as HeaderValue[][]).flat();
  return given;
}

// One of 32 bits for a name's length (names of lengths 32 apart share one, which only costs a look).
function lengthBit(name: string): number {
  return 1 << (name.length & 31);
}

// Adds or replaces `name` in a flat list; returns its index there (the name's).
function add(list: HeaderValue[], name: string, value: HeaderValue | undefined): number {
  const at = indexOfName(list, name);
  if (value === undefined) return at;
  if (at < 0) {
    list.push(name, value);
    return list.length - 2;
  }
  list[at + 1] = isVary(name) ? `${String(list[at + 1])}, ${String(value)}` : value;
  return at;
}

// Where `name` is in a flat list, case-insensitively; -1 when it is not.
function indexOfName(list: readonly HeaderValue[], name: string): number {
  for (let i = 0; i < list.length; i += 2) if (sameName(list[i] as string, name)) return i;
  return -1;
}

const VARY = "vary";
function isVary(name: string): boolean {
  return sameName(name, VARY);
}

/**
 * Header names compared as HTTP compares them, ignoring ASCII case, without lower-casing copies:
 * most names a response carries differ in length, and equal lengths are compared code by code.
 */
export function sameName(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  if (a === b) return true;
  for (let i = 0; i < a.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const lower = x | 0x20;
    if (lower !== (y | 0x20) || lower < 0x61 || lower > 0x7a) return false;
  }
  return true;
}

/**
 * Adds a header to `res`'s head: waiting on an `ApiResponse`, else through `setHeader`. `checked`:
 * the value is known to hold only characters node:http allows in a value (see `wait`).
 */
export function addHeader(res: ServerResponse, name: string, value: HeaderValue, checked = false): void {
  if (res instanceof ApiResponse) res.wait(name, value, checked);
  else if (isVary(name)) res.appendHeader(name, value as string);
  else res.setHeader(name, value);
}
