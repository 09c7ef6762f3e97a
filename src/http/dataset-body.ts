/**
 * What a dataset response's body is made from, and its rendering. It is rendered only when no kept
 * body answers (a repeated request is served from the response cache by ETag). A large range is
 * rendered in pieces of days, yielding to the event loop between them, so that no request waits
 * behind another's work; and only a few bodies are rendered at once (`render-slots.ts`). The pieces
 * join to exactly what one piece for the whole range would be: records are made day by day, each
 * from its own day and the days before it, whatever range asks for them.
 */
import {
  type Dataset,
  type DataRecord,
  type FieldDoc,
  type RangeRequest,
  servedFieldsOf,
} from "../datasets/dataset.ts";
import type { RecordCache } from "../datasets/record-cache.ts";
import { DamagedDayError, type ReadingStore } from "../store/reading-store.ts";
import { dayRange, DAY_MS } from "../time.ts";
import { nextPeriod, periodRange, ZONE_OFFSET_MS } from "../periods.ts";
import { project } from "./columns.ts";
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

/**
 * Whether the record cache can serve a range: it keeps UTC stamps, and daily records of UTC days
 * averaged as the dataset's daily fields. Other zones, periods and aggregates are computed afresh.
 */
export function cacheable(range: RangeRequest): boolean {
  if ((range.zone ?? "UTC") !== "UTC") return false;
  return range.interval === "1h" || ((range.period ?? "1d") === "1d" && (range.agg ?? "mean") === "mean");
}

/**
 * The range cut into pieces, in order: hours at whole UTC days, a day a piece; UTC days 31 a
 * piece; longer periods, or days in another zone, in runs of whole periods of about a month.
 */
export function pieces(range: RangeRequest): RangeRequest[] {
  const hourly = range.interval === "1h";
  const period = range.period ?? "1d";
  if (!hourly && !cacheable(range)) return periodPieces(range);
  const { from, to } = hourly ? { from: range.start, to: range.end } : dayRange(range.start, range.end);
  const step = (hourly ? HOURLY_PIECE_DAYS : DAILY_PIECE_DAYS) * DAY_MS;
  const out: RangeRequest[] = [];
  for (let start = from; start < to;) {
    const end = Math.min(to, Math.floor(start / DAY_MS) * DAY_MS + step);
    out.push({ ...range, start, end, period });
    start = end;
  }
  return out;
}

function periodPieces(range: RangeRequest): RangeRequest[] {
  const period = range.period ?? "1d";
  const offset = ZONE_OFFSET_MS[range.zone ?? "UTC"];
  const { from, to } = periodRange(range.start, range.end, period, offset);
  const out: RangeRequest[] = [];
  for (let start = from; start < to;) {
    let end = nextPeriod(start, period, offset);
    while (end < to && end - start < DAILY_PIECE_DAYS * DAY_MS) end = nextPeriod(end, period, offset);
    out.push({ ...range, start, end, period });
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
  /** The fields the records carry (`columns.ts`); all of them when absent. */
  readonly fields?: readonly FieldDoc[];
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
      const parts: Buffer[] = [];
      await this.write((bytes) => {
        parts.push(bytes);
      });
      if (store.changedSince(version)) throw new StaleBodyError();
      return Buffer.concat(parts);
    });
  }

  /**
   * Hands the body's bytes to `out` piece by piece, yielding to the event loop between pieces and
   * waiting for `out` (a stream's backpressure); holds no more than a piece (a row group in Parquet).
   */
  async write(out: (bytes: Buffer) => void | Promise<void>): Promise<void> {
    const { format, store, version } = this.#parts;
    try {
      if (format === "csv") await this.#csv(out);
      else if (format === "parquet") await this.#parquet(out);
      else await this.#json(out);
    } catch (error) {
      // A day rewritten by an ingest since the body began: the body is stale, not the day damaged.
      if (error instanceof DamagedDayError && error.transient && store.changedSince(version))
        throw new StaleBodyError();
      throw error;
    }
  }

  /** The fields served, in order. */
  get fields(): readonly FieldDoc[] {
    const { dataset, range } = this.#parts;
    return this.#parts.fields ?? servedFieldsOf(dataset, range);
  }

  #records(piece: RangeRequest): DataRecord[] {
    const { dataset, store, asOf, recordCache } = this.#parts;
    if (asOf === undefined && cacheable(piece)) return recordCache.records(dataset, store, piece);
    return dataset.records(asOf ?? store, piece);
  }

  // The records' JSON texts joined by commas: kept ones when the cache holds them whole.
  #jsonTexts(piece: RangeRequest): string {
    const { dataset, store, asOf, recordCache, range } = this.#parts;
    if (asOf === undefined && cacheable(piece) && range.columns === undefined)
      return recordCache.json(dataset, store, piece);
    const records = this.#records(piece);
    const fields = this.fields;
    return records
      .map((record) => JSON.stringify(range.columns === undefined ? record : project(record, fields)))
      .join(",");
  }

  // The same bytes as JSON.stringify({ meta, data }), from records serialized once each.
  async #json(out: (bytes: Buffer) => void | Promise<void>): Promise<void> {
    await out(Buffer.from(`{"meta":${this.#parts.meta()},"data":[`));
    let first = true;
    for (const piece of pieces(this.#parts.range)) {
      await yieldToLoop();
      const text = this.#jsonTexts(piece);
      if (text === "") continue;
      await out(Buffer.from(first ? text : `,${text}`));
      first = false;
    }
    await out(Buffer.from("]}"));
  }

  #include(): (field: { name: string }) => boolean {
    const { range } = this.#parts;
    return (field) => range.options[field.name] === true;
  }

  async #csv(out: (bytes: Buffer) => void | Promise<void>): Promise<void> {
    const fields = this.fields;
    const include = this.#include();
    const header = recordsToCsv([], fields, include);
    await out(Buffer.from(header));
    for (const piece of pieces(this.#parts.range)) {
      await yieldToLoop();
      const rows = recordsToCsv(this.#records(piece), fields, include).slice(header.length);
      if (rows !== "") await out(Buffer.from(rows));
    }
  }

  async #parquet(out: (bytes: Buffer) => void | Promise<void>): Promise<void> {
    // The Parquet writer is loaded by the first Parquet answer: most servers never give one.
    const { ParquetEncoder, parquetColumns } = await import("./parquet.ts");
    const encoder = new ParquetEncoder(parquetColumns(this.fields, this.#include()), this.#parts.meta(), out);
    for (const piece of pieces(this.#parts.range)) {
      await yieldToLoop();
      await encoder.add(this.#records(piece));
    }
    await encoder.end();
  }
}
