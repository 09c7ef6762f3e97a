/**
 * One request's answer, in the style of Fastify's reply: the headers the pipeline decides before
 * the handler runs (the request id, `nosniff`, the RateLimit fields, CORS) are collected here, and
 * every writer sends them with its own in one `writeHead`. node:http then checks and stores each
 * header once; `setHeader` would store it in the response's header object first and merge that
 * object with the writer's head again, which cost the hot path a tenth of its instructions.
 *
 * A header the writer names replaces a collected one of the same name; a writer that joins values
 * (`Vary`) reads the collected value with `collected`. Handlers write through their reply only:
 * `res` is there for what is not a head (the body, streaming, `destroyed`, `close`).
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/** A head as node:http's `writeHead` takes it: a flat [name, value, ...] list or an object. */
export type HeadFields = (string | number)[] | OutgoingHttpHeaders;

export class Reply {
  readonly res: ServerResponse;
  /** The collected headers, as one flat [name, value, ...] list in the order they came. */
  readonly #collected: string[] = [];
  /** A bit for the length of each collected name: a name of another length is none of them. */
  #lengths = 0;

  constructor(res: ServerResponse) {
    this.res = res;
  }

  /** Adds a header to the head this answer will carry; a later one of the same name replaces it. */
  header(name: string, value: string): this {
    const at = this.#indexOf(name);
    if (at < 0) this.#collected.push(name, value);
    else this.#collected[at + 1] = value;
    this.#lengths |= lengthBit(name);
    return this;
  }

  /** The collected value of a header, if any. */
  collected(name: string): string | undefined {
    const at = this.#indexOf(name);
    return at < 0 ? undefined : this.#collected[at + 1];
  }

  /** Writes the head: the collected headers, then `fields`, whose names replace collected ones. */
  writeHead(status: number, fields: HeadFields = []): ServerResponse {
    const own = Array.isArray(fields) ? fields : flat(fields);
    const collected = this.#collected;
    if (collected.length === 0) return this.res.writeHead(status, own);
    return this.res.writeHead(status, this.#names(own) ? merged(collected, own) : joined(collected, own));
  }

  #indexOf(name: string): number {
    return (this.#lengths & lengthBit(name)) === 0 ? -1 : indexOfName(this.#collected, name);
  }

  // Whether the writer names a collected header (rarely: Vary, beside CORS).
  #names(own: readonly (string | number)[]): boolean {
    for (let i = 0; i < own.length; i += 2) {
      const name = own[i];
      if (typeof name === "string" && this.#indexOf(name) >= 0) return true;
    }
    return false;
  }
}

// A name's bit in a set of lengths (a length past 30 shares bit 31).
const lengthBit = (name: string): number => 1 << Math.min(name.length, 31);

// Header names are compared without regard to case (RFC 9110 §5.1): the length first, as most
// differ, then character by character with ASCII letters folded (a name is a token: ASCII only),
// which makes no lower-cased copies.
function sameName(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  if (a === b) return true;
  for (let i = 0; i < a.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const lower = x | 0x20; // a letter's lower case; "a" is 0x61, "z" 0x7a
    if (lower !== (y | 0x20) || lower < 0x61 || lower > 0x7a) return false;
  }
  return true;
}

function indexOfName(list: readonly (string | number)[], name: string): number {
  for (let i = 0; i < list.length; i += 2) {
    const given = list[i];
    if (typeof given === "string" && sameName(given, name)) return i;
  }
  return -1;
}

// The collected headers the writer does not name, then the writer's.
function merged(collected: readonly string[], own: readonly (string | number)[]): (string | number)[] {
  const head: (string | number)[] = [];
  for (let i = 0; i < collected.length; i += 2) {
    if (indexOfName(own, collected[i]!) < 0) head.push(collected[i]!, collected[i + 1]!);
  }
  for (const field of own) head.push(field);
  return head;
}

// The collected headers, then the writer's (which name none of them).
function joined(collected: readonly string[], own: readonly (string | number)[]): (string | number)[] {
  const head: (string | number)[] = collected.slice();
  for (let i = 0; i < own.length; i++) head.push(own[i]!);
  return head;
}

// An object head as a flat list; a list value (Set-Cookie) gives one line per item.
function flat(fields: OutgoingHttpHeaders): (string | number)[] {
  const head: (string | number)[] = [];
  for (const name in fields) {
    const value = fields[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) head.push(name, item);
    else head.push(name, value);
  }
  return head;
}
