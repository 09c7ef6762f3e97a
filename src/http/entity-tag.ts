/**
 * An entity tag (RFC 9110 §8.8.3): the opaque value a representation is known by. A body
 * compressed is another representation, so each coding has a tag of its own, told apart by a
 * suffix (`"<value>-gz"`); a conditional request matches any of them (`notModified` in send.ts).
 * The response cache keeps each coding's body under the same value and suffix.
 */
import { createHash } from "node:crypto";
import type { Encoding } from "./negotiation.ts";

const SUFFIX: Readonly<Record<Encoding, string>> = { identity: "", gzip: "-gz", br: "-br" };

export class EntityTag {
  /** The opaque value: no quotes, no coding suffix. */
  readonly value: string;

  constructor(value: string) {
    this.value = value;
  }

  /** The tag of these contents: the first `chars` characters of their SHA-256 in base64url. */
  static of(contents: string | Buffer, chars: number): EntityTag {
    return new EntityTag(createHash("sha256").update(contents).digest("base64url").slice(0, chars));
  }

  /** The `ETag` field's value for the body in `coding`: `"<value><suffix>"`. */
  text(coding: Encoding): string {
    return `"${this.key(coding)}"`;
  }

  /** The key the body in `coding` is kept under: the value, with the coding's suffix. */
  key(coding: Encoding): string {
    return this.value + SUFFIX[coding];
  }
}
