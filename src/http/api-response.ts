/**
 * The server's response class: headers the pipeline decides before a writer runs (the request id,
 * `nosniff`, the RateLimit fields, CORS) wait here and go out with whatever head the writer writes,
 * in that one `writeHead` call. `setHeader` would store and validate each of them once, then again
 * when the writer's own headers are merged in (README: "Performance").
 *
 * A header the writer also names replaces the waiting one, except `Vary`, whose values are joined
 * (`Vary: Origin, Accept, Accept-Encoding`). Used by `hardened-server.ts` through `node:http`'s
 * `ServerResponse` option; `addHeader` works on any response, falling back to `setHeader`.
 */
import {
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  ServerResponse,
} from "node:http";

type HeaderValue = number | string | readonly string[];

export class ApiResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The waiting headers as one flat [name, value, ...] list, in the order they were added. */
  #waiting: HeaderValue[] | null = null;

  /** Adds a header to the head this response will write; a later one of the same name replaces it. */
  wait(name: string, value: HeaderValue): void {
    // Too late once the head is out: setHeader throws ERR_HTTP_HEADERS_SENT, as it should.
    if (this.headersSent) this.setHeader(name, value);
    else add((this.#waiting ??= []), name, value);
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
    const given = typeof reason === "string" ? headers : reason;
    const waiting = this.#waiting;
    if (waiting !== null) {
      this.#waiting = null;
      const flat = merged(waiting, given);
      return message === undefined
        ? super.writeHead(statusCode, flat)
        : super.writeHead(statusCode, message, flat);
    }
    return message === undefined
      ? super.writeHead(statusCode, given)
      : super.writeHead(statusCode, message, given);
  }
}

// The waiting headers with the writer's added: same names replace, except Vary, which joins.
// `waiting` is this response's own list, used up here, so it becomes the result.
function merged(
  waiting: HeaderValue[],
  given: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined,
): OutgoingHttpHeader[] {
  if (Array.isArray(given)) {
    const nested = given.length > 0 && Array.isArray(given[0]);
    if (nested)
      for (const [name, value] of given as unknown as [string, HeaderValue][]) add(waiting, name, value);
    else for (let i = 0; i < given.length; i += 2) add(waiting, String(given[i]), given[i + 1]);
  } else if (given !== undefined) {
    for (const name in given) add(waiting, name, given[name]);
  }
  return waiting as OutgoingHttpHeader[];
}

function add(list: HeaderValue[], name: string, value: HeaderValue | undefined): void {
  if (value === undefined) return;
  const at = indexOfName(list, name);
  if (at < 0) list.push(name, value);
  else list[at + 1] = isVary(name) ? `${String(list[at + 1])}, ${String(value)}` : value;
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

/** Adds a header to `res`'s head: waiting on an `ApiResponse`, else through `setHeader`. */
export function addHeader(res: ServerResponse, name: string, value: HeaderValue): void {
  if (res instanceof ApiResponse) res.wait(name, value);
  else if (isVary(name)) res.appendHeader(name, value as string);
  else res.setHeader(name, value);
}
