/**
 * An entity tag (RFC 9110 §8.8.3): the opaque value a representation is known by, and what it is
 * written as in each content coding, the `ETag` field's value and the response cache's key. A body
 * compressed is another representation, so each coding has a tag of its own, told apart by a
 * suffix (`"<value>-gz"`); a conditional request matches any of them (`notModified` in send.ts).
 *
 * Each text is made once per tag and coding. A tag is kept with what it tags (a parsed query, a
 * loaded page), so every later answer writes the same strings: joined per request, they cost a
 * cached answer about 1.3k instructions (docs/performance.md).
 */
import { createHash } from "node:crypto";
import type { Encoding } from "./negotiation.ts";

const SUFFIX: Readonly<Record<Encoding, string>> = { identity: "", gzip: "-gz", br: "-br" };

export class EntityTag {
  /** The opaque value: no quotes, no coding suffix. */
  readonly value: string;
  // The field values and cache keys made so far, by coding (every coding named from the start).
  readonly #texts: Record<Encoding, string | undefined> = {
    identity: undefined,
    gzip: undefined,
    br: undefined,
  };
  readonly #keys: Record<Encoding, string | undefined> = {
    identity: undefined,
    gzip: undefined,
    br: undefined,
  };

  constructor(value: string) {
    this.value = value;
  }

  /** The tag of these contents: the first `chars` characters of their SHA-256 in base64url. */
  static of(contents: string | Buffer, chars: number): EntityTag {
    return new EntityTag(createHash("sha256").update(contents).digest("base64url").slice(0, chars));
  }

  /** The `ETag` field's value for the body in `coding`: `"<value><suffix>"`. */
  text(coding: Encoding): string {
    return (this.#texts[coding] ??= `"${this.value}${SUFFIX[coding]}"`);
  }

  /** The key the body in `coding` is kept under: the value, with the coding's suffix. */
  key(coding: Encoding): string {
    return (this.#keys[coding] ??= this.value + SUFFIX[coding]);
  }
}
