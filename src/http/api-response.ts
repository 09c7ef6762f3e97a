/**
 * The server's response class: headers the pipeline decides before a writer runs (the request id,
 * `nosniff`, the RateLimit fields, CORS) wait here and go out with the writer's own in its one
 * `writeHead` call, as Fastify's reply collects its headers. node:http then stores and checks each
 * header once, where `setHeader` would store and check it once, and again when the writer's own
 * headers are merged in.
 *
 * A header the writer also names replaces the waiting one, except `Vary`, whose values are joined
 * (`Vary: Origin, Accept, Accept-Encoding`). A head node:http refuses leaves the waiting headers
 * for the next one, so the error's answer still carries the request id. Installed by
 * `hardened-server.ts` through `node:http`'s public `ServerResponse` option; only public methods
 * are overridden, so it runs on every supported Node. `addHeader` works on any response, falling
 * back to `setHeader`.
 */
import {
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  ServerResponse,
} from "node:http";

type HeaderValue = number | string | readonly string[];
type Given = OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined;

export class ApiResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The waiting headers as one flat [name, value, ...] list, in the order they were added. */
  #waiting: HeaderValue[] | null = null;

  /** Adds a header to the head this response will write; a later one of the same name replaces it. */
  wait(name: string, value: HeaderValue): void {
    // Too late once the head is out: setHeader throws ERR_HTTP_HEADERS_SENT, as it should.
    if (this.headersSent) {
      this.setHeader(name, value);
      return;
    }
    add((this.#waiting ??= []), name, value);
  }

  /** The waiting value of a header, if any (for tests and writers that combine values). */
  waiting(name: string): HeaderValue | undefined {
    const waiting = this.#waiting ?? [];
    const at = indexOfName(waiting, name);
    return at >= 0 ? waiting[at + 1] : undefined;
  }

  // node:http calls writeHead itself for a head written implicitly (`end` without it), so every
  // head passes here.
  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const message = typeof reason === "string" ? reason : undefined;
    const given = typeof reason === "string" ? headers : reason;
    const waiting = this.#waiting;
    this.#waiting = null;
    const head = waiting === null ? given : (merged(waiting, given) as OutgoingHttpHeader[]);
    try {
      return message === undefined
        ? super.writeHead(statusCode, head)
        : super.writeHead(statusCode, message, head);
    } catch (error) {
      // Refused (a bad value, a bad status): the waiting headers wait for the next head, the error's.
      if (waiting !== null && !this.headersSent && this.#waiting === null) this.#waiting = waiting;
      throw error;
    }
  }
}

/** The waiting headers, then the writer's: a repeated name replaces the waiting value (Vary joins). */
function merged(waiting: readonly HeaderValue[], given: Given): HeaderValue[] {
  const head = waiting.slice();
  if (given === undefined) return head;
  const flat = flatList(given);
  for (let i = 0; i < flat.length - 1; i += 2) {
    const name = flat[i];
    const value = flat[i + 1];
    if (value === undefined) continue;
    // Not a name: node:http refuses it, as it would have.
    if (typeof name !== "string") head.push(name as HeaderValue, value);
    else add(head, name, value);
  }
  return head;
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

// Adds or replaces `name` in a flat list (joining Vary's values).
function add(list: HeaderValue[], name: string, value: HeaderValue): void {
  const at = indexOfName(list, name);
  if (at < 0) list.push(name, value);
  else list[at + 1] = isVary(name) ? `${String(list[at + 1])}, ${String(value)}` : value;
}

// Where `name` is in a flat list, case-insensitively; -1 when it is not.
function indexOfName(list: readonly HeaderValue[], name: string): number {
  for (let i = 0; i < list.length; i += 2) {
    const entry = list[i];
    if (typeof entry === "string" && sameName(entry, name)) return i;
  }
  return -1;
}

function isVary(name: string): boolean {
  return sameName(name, "vary");
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
