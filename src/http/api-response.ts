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
  /** Names (lower case) and values of the waiting headers, in the order they were added. */
  #names: string[] = [];
  #values: HeaderValue[] = [];
  /** The names as they were given, for the wire. */
  #spelled: string[] = [];

  /** Adds a header to the head this response will write; a later one of the same name replaces it. */
  wait(name: string, value: HeaderValue): void {
    // Too late once the head is out: setHeader throws ERR_HTTP_HEADERS_SENT, as it should.
    if (this.headersSent) this.setHeader(name, value);
    else this.#add(name, value);
  }

  /** The waiting value of a header, if any (for tests and writers that combine values). */
  waiting(name: string): HeaderValue | undefined {
    const at = this.#names.indexOf(name.toLowerCase());
    return at >= 0 ? this.#values[at] : undefined;
  }

  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const message = typeof reason === "string" ? reason : undefined;
    const given = typeof reason === "string" ? headers : reason;
    if (this.#names.length > 0) {
      const flat = this.#merged(given);
      this.#names = [];
      this.#values = [];
      this.#spelled = [];
      return message === undefined
        ? super.writeHead(statusCode, flat)
        : super.writeHead(statusCode, message, flat);
    }
    return message === undefined
      ? super.writeHead(statusCode, given)
      : super.writeHead(statusCode, message, given);
  }

  #add(name: string, value: HeaderValue | undefined): void {
    if (value === undefined) return;
    const lower = name.toLowerCase();
    const at = this.#names.indexOf(lower);
    if (at < 0) {
      this.#names.push(lower);
      this.#values.push(value);
      this.#spelled.push(name);
    } else {
      this.#values[at] = lower === "vary" ? `${String(this.#values[at])}, ${String(value)}` : value;
    }
  }

  // The waiting headers and the writer's as one flat [name, value, ...] list.
  #merged(given: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined): OutgoingHttpHeader[] {
    if (Array.isArray(given)) {
      const nested = given.length > 0 && Array.isArray(given[0]);
      if (nested)
        for (const [name, value] of given as unknown as [string, HeaderValue][]) this.#add(name, value);
      else for (let i = 0; i < given.length; i += 2) this.#add(String(given[i]), given[i + 1]);
    } else if (given !== undefined) {
      for (const name in given) this.#add(name, given[name]);
    }
    const flat: OutgoingHttpHeader[] = [];
    for (let i = 0; i < this.#names.length; i++)
      flat.push(this.#spelled[i]!, this.#values[i] as OutgoingHttpHeader);
    return flat;
  }
}

/** Adds a header to `res`'s head: waiting on an `ApiResponse`, else through `setHeader`. */
export function addHeader(res: ServerResponse, name: string, value: HeaderValue): void {
  if (res instanceof ApiResponse) res.wait(name, value);
  else if (name.toLowerCase() === "vary") res.appendHeader(name, value as string);
  else res.setHeader(name, value);
}
