/**
 * One request's answer, in the style of Fastify's reply: its headers are collected here, by
 * lower-cased name (the pipeline's before the handler runs: the request id, `nosniff`, the
 * RateLimit fields, CORS; then the writer's), and written with one `writeHead`.
 *
 * A header set again replaces the one collected under its name; a writer that joins values
 * (`Vary`) reads the collected value with `collected`. Handlers write through their reply only:
 * `res` is there for what is not a head (the body, streaming, `destroyed`, `close`).
 */
import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from "node:http";

export class Reply {
  readonly res: ServerResponse;
  readonly #headers: OutgoingHttpHeaders = {};

  constructor(res: ServerResponse) {
    this.res = res;
  }

  /** Adds a header to the head this answer will carry; a later one of the same name replaces it. */
  header(name: string, value: OutgoingHttpHeader): this {
    this.#headers[name.toLowerCase()] = value;
    return this;
  }

  /** The collected value of a header, if any. */
  collected(name: string): string | undefined {
    const value = this.#headers[name.toLowerCase()];
    return value === undefined ? undefined : String(value);
  }

  /**
   * The response, with the collected headers set on it, for a writer that writes its own head (the
   * MCP SDK): node:http adds them to the head it writes.
   */
  handOver(): ServerResponse {
    for (const name in this.#headers) this.res.setHeader(name, this.#headers[name]!);
    return this.res;
  }

  /** Writes the head: the collected headers with `fields`, whose names replace collected ones. */
  writeHead(status: number, fields?: OutgoingHttpHeaders): ServerResponse {
    for (const name in fields) {
      const value = fields[name];
      if (value !== undefined) this.header(name, value);
    }
    return this.res.writeHead(status, this.#headers);
  }
}
