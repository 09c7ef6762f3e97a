/** Why stored data is not served: the whole store (an unfinished ingest), or one damaged day. */

/** Why the whole store is not served now. */
export interface StoreUnavailable {
  readonly transient: boolean;
  readonly message: string;
}

/** Thrown by a reader that needs data while the whole store is unavailable; the HTTP layer answers 503. */
export class StoreUnavailableError extends Error {
  readonly transient: boolean;
  constructor(why: StoreUnavailable) {
    super(why.message);
    this.name = "StoreUnavailableError";
    this.transient = why.transient;
  }
}

/**
 * A stored day that does not match the manifest's record of it: never served as data. It is
 * `transient` while an ingest is rewriting the store (the day file is new, the manifest not yet).
 */
export class DamagedDayError extends Error {
  readonly day: string;
  readonly file: string;
  readonly transient: boolean;
  constructor(day: string, file: string, why: string, transient = false) {
    super(
      transient
        ? `The stored day ${day} is being rewritten by an ingest (${file})`
        : `The stored day ${day} is damaged (${file}: ${why})`,
    );
    this.name = "DamagedDayError";
    this.day = day;
    this.file = file;
    this.transient = transient;
  }
}
