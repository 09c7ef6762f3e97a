/**
 * What a dataset response's body is made from, and its rendering. It is rendered only when no kept
 * body answers (a repeated request is served from the response cache by ETag). A large range is
 * rendered in pieces of days, yielding to the event loop between them, so that no request waits
 * behind another's work; and only a few bodies are rendered at once (`render-slots.ts`). The pieces
 * join to exactly what one piece for the whole range would be: records are made day by day, each
 * from its own day and the days before it, whatever range asks for them.
 */
import type { Dataset, DataRecord, RangeRequest } from "../datasets/dataset.ts";
import type { RecordCache } from "../datasets/record-cache.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { dayRange, DAY_MS } from "../time.ts";
import { recordsToCsv } from "./csv.ts";
import type { Format } from "./negotiation.ts";
import type { ParsedRange } from "./range-query.ts";
import { type RenderSlots, yieldToLoop } from "./render-slots.ts";
import type { BodySource } from "./send.ts";

/** Days of hourly records per piece: the dearest dataset (grid stress) takes about 0.5 ms a day here. */
const HOURLY_PIECE_DAYS = 1;
/** Days of daily records per piece. */
const DAILY_PIECE_DAYS = 31;

/** The store changed while a body was rendered in pieces: its pieces may mix two versions. */
export class StaleBodyError extends Error {
  constructor() {
    super("The store changed while the body was rendered");
    this.name = "StaleBodyError";
  }
}

/** The range cut at whole UTC days into pieces, in order (a daily range: its covered days). */
export function pieces(range: ParsedRange): RangeRequest[] {
  const hourly = range.interval === "1h";
  const { from, to } = hourly ? { from: range.start, to: range.end } : dayRange(range.start, range.end);
  const step = (hourly ? HOURLY_PIECE_DAYS : DAILY_PIECE_DAYS) * DAY_MS;
  const out: RangeRequest[] = [];
  for (let start = from; start < to;) {
    const end = Math.min(to, Math.floor(start / DAY_MS) * DAY_MS + step);
    out.push({ start, end, interval: range.interval, options: range.options });
    start = end;
  }
  return out;
}

/** Everything a dataset body is rendered from. */
export interface DatasetBodyParts {
  readonly dataset: Dataset;
  readonly range: ParsedRange;
  readonly format: Format;
  readonly recordCache: RecordCache;
  readonly store: ReadingStore;
  /** The store as it was at `as_of`, when asked: computed afresh, never cached. */
  readonly asOf: ReadingStore | undefined;
  /** The store's version the response's ETag was computed for. */
  readonly version: number;
  /** The JSON envelope's `meta`, as JSON text. */
  readonly meta: () => string;
  readonly slots: RenderSlots;
}

/** A dataset response's body, rendered when asked. */
export class DatasetBody implements BodySource {
  readonly #parts: DatasetBodyParts;
  constructor(parts: DatasetBodyParts) {
    this.#parts = parts;
  }

  /** The body's bytes; throws a StaleBodyError when the store changed meanwhile. */
  render(): Promise<Buffer> {
    const { slots, store, version } = this.#parts;
    return slots.run(async () => {
      // Each piece becomes bytes as it is made: one megabyte-long string would take as long
      // to join and encode, in one go, as many pieces take to make.
      const parts = this.#parts.format === "csv" ? await this.#csv() : await this.#json();
      if (store.refresh().version !== version) throw new StaleBodyError();
      return Buffer.concat(parts);
    });
  }

  #records(piece: RangeRequest): DataRecord[] {
    const { dataset, store, asOf, recordCache } = this.#parts;
    return asOf === undefined ? recordCache.records(dataset, store, piece) : dataset.records(asOf, piece);
  }

  // The same bytes as JSON.stringify({ meta, data }), from records serialized once each.
  async #json(): Promise<Buffer[]> {
    const { dataset, store, asOf, recordCache, range } = this.#parts;
    const parts = [Buffer.from(`{"meta":${this.#parts.meta()},"data":[`)];
    let first = true;
    for (const piece of pieces(range)) {
      await yieldToLoop();
      const text =
        asOf === undefined
          ? recordCache.json(dataset, store, piece)
          : dataset
              .records(asOf, piece)
              .map((record) => JSON.stringify(record))
              .join(",");
      if (text === "") continue;
      parts.push(Buffer.from(first ? text : `,${text}`));
      first = false;
    }
    parts.push(Buffer.from("]}"));
    return parts;
  }

  async #csv(): Promise<Buffer[]> {
    const { dataset, range } = this.#parts;
    const fields = dataset.servedFields?.(range.interval, range.options) ?? dataset.fields[range.interval];
    const include = (field: { name: string }) => range.options[field.name] === true;
    const header = recordsToCsv([], fields, include);
    const parts = [Buffer.from(header)];
    for (const piece of pieces(range)) {
      await yieldToLoop();
      parts.push(Buffer.from(recordsToCsv(this.#records(piece), fields, include).slice(header.length)));
    }
    return parts;
  }
}
