/**
 * One request's answer, in the style of Fastify's reply: its headers are collected here, by
 * lower-cased name (the pipeline's before the handler runs: the request id, `nosniff`, the
 * RateLimit fields, CORS; then the writer's), and written with one head.
 *
 * A reply goes to a connection's response, or is kept as a `CallAnswer` for a call made
 * in-process (`app.ts`: the explorer's and MCP's requests for their caller). A writer that ends
 * with `end` works for both; streaming, or handing the response to a library, needs a connection.
 *
 * A header set again replaces the one collected under its name; a writer that joins values
 * (`Vary`) reads the collected value with `collected`.
 */
import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from "node:http";

/** What a call made in-process was answered: as the connection would have been. */
export interface CallAnswer {
  readonly status: number;
  /** By lower-cased name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export class Reply {
  readonly #res: ServerResponse | undefined;
  readonly #headers: OutgoingHttpHeaders = {};
  #answer: CallAnswer | undefined;

  /** A reply on `res`, or without it one kept for an in-process call. */
  constructor(res?: ServerResponse) {
    this.#res = res;
  }

  /** The connection's response; an in-process call has none (a programming error to ask). */
  get res(): ServerResponse {
    if (this.#res === undefined) throw new TypeError("An in-process call has no connection to write to");
    return this.#res;
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

  /** Whether the head is written (or the answer kept). */
  get headersSent(): boolean {
    return this.#res === undefined ? this.#answer !== undefined : this.#res.headersSent;
  }

  /** Whether the client went away: nothing more is worth writing. */
  get gone(): boolean {
    return this.#res?.destroyed ?? false;
  }

  /** Cuts the connection off: a client that got a head and part of a body sees it incomplete. */
  destroy(): void {
    this.#res?.destroy();
  }

  /**
   * The response, with the collected headers set on it, for a writer that writes its own head (the
   * MCP SDK): node:http adds them to the head it writes.
   */
  handOver(): ServerResponse {
    const res = this.res;
    for (const name in this.#headers) res.setHeader(name, this.#headers[name]!);
    return res;
  }

  /** Writes the head: the collected headers with `fields`, whose names replace collected ones. */
  writeHead(status: number, fields?: OutgoingHttpHeaders): ServerResponse {
    const res = this.res;
    this.#add(fields);
    return res.writeHead(status, this.#headers);
  }

  /** Writes the whole answer: the head, with `fields`, and the body. */
  end(status: number, body?: string | Buffer, fields?: OutgoingHttpHeaders): void {
    this.#add(fields);
    if (this.#res !== undefined) {
      this.#res.writeHead(status, this.#headers).end(body);
      return;
    }
    const headers: Record<string, string> = {};
    for (const name in this.#headers) headers[name] = String(this.#headers[name]);
    this.#answer = { status, headers, body: body === undefined ? Buffer.alloc(0) : Buffer.from(body) };
  }

  /** The kept answer of an in-process call; undefined until it is written. */
  answer(): CallAnswer | undefined {
    return this.#answer;
  }

  #add(fields: OutgoingHttpHeaders | undefined): void {
    for (const name in fields) {
      const value = fields[name];
      if (value !== undefined) this.header(name, value);
    }
  }
}
