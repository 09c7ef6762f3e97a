/**
 * One request's answer, in the style of Fastify's reply: the headers the pipeline decides before
 * the handler runs (the request id, `nosniff`, the RateLimit fields, CORS) are collected here, by
 * lower-cased name, and every writer sends them with its own in one `writeHead`.
 *
 * A header the writer names replaces a collected one of the same name; a writer that joins values
 * (`Vary`) reads the collected value with `collected`. Handlers write through their reply only:
 * `res` is there for what is not a head (the body, streaming, `destroyed`, `close`).
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

export class Reply {
  readonly res: ServerResponse;
  readonly #headers: OutgoingHttpHeaders = {};

  constructor(res: ServerResponse) {
    this.res = res;
  }

  /** Adds a header to the head this answer will carry; a later one of the same name replaces it. */
  header(name: string, value: string): this {
    this.#headers[name.toLowerCase()] = value;
    return this;
  }

  /** The collected value of a header, if any. */
  collected(name: string): string | undefined {
    const value = this.#headers[name.toLowerCase()];
    return value === undefined ? undefined : String(value);
  }

  /** Writes the head: the collected headers and `fields`, whose names replace collected ones. */
  writeHead(status: number, fields: OutgoingHttpHeaders = {}): ServerResponse {
    const head: OutgoingHttpHeaders = { ...this.#headers };
    for (const [name, value] of Object.entries(fields)) {
      if (value !== undefined) head[name.toLowerCase()] = value;
    }
    return this.res.writeHead(status, head);
  }
}
