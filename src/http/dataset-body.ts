/**
 * What a dataset response's body is made from, and its rendering, for every kind of dataset. It
 * is rendered only when no kept body answers (a repeated request is served from the response cache
 * by ETag). A range is rendered in the pieces its view cuts it into (a day of hours, about a month
 * of days), yielding to the event loop between them, so that no request waits behind another's
 * work; and only a few bodies are rendered at once (`render-slots.ts`). The pieces join to exactly
 * what one piece for the whole range would be.
 */
import type { FieldDoc, RangeRequest } from "../records/dataset.ts";
import { piecesOf, type RecordView } from "../records/record-reader.ts";
import { DamagedDayError } from "../store/reading-store.ts";
import { project } from "./response-fields.ts";
import { recordsToCsv } from "./csv.ts";
import type { Format } from "./negotiation.ts";
import type { ParsedRange } from "./range-query.ts";
import { type RenderSlots, yieldToLoop } from "./render-slots.ts";

/** The data changed while a body was rendered in pieces: its pieces may mix two versions. */
export class StaleBodyError extends Error {
  constructor() {
    super("The store changed while the body was rendered");
    this.name = "StaleBodyError";
  }
}

/** Everything a dataset body is rendered from. */
export interface DatasetBodyParts {
  readonly range: ParsedRange;
  readonly format: Format;
  /** The records as the answer reads them (now, or at `as_of`). */
  readonly view: RecordView;
  /** Whether the data changed since the answer's ETag was computed. */
  readonly changed: () => boolean;
  /** The JSON envelope's `meta`, as JSON text. */
  readonly meta: () => string;
  readonly slots: RenderSlots;
  /** The fields the records carry (`columns.ts`). */
  readonly fields: readonly FieldDoc[];
}

/** A dataset response's body, rendered when asked. */
export class DatasetBody {
  readonly #parts: DatasetBodyParts;
  constructor(parts: DatasetBodyParts) {
    this.#parts = parts;
  }

  /** The body's bytes; throws a StaleBodyError when the data changed meanwhile. */
  render(): Promise<Buffer> {
    return this.#parts.slots.run(async () => {
      // Each piece becomes bytes as it is made: one megabyte-long string would take as long
      // to join and encode, in one go, as many pieces take to make.
      const parts: Buffer[] = [];
      await this.write((bytes) => {
        parts.push(bytes);
      });
      if (this.#parts.changed()) throw new StaleBodyError();
      return Buffer.concat(parts);
    });
  }

  /**
   * Hands the body's bytes to `out` piece by piece, yielding to the event loop between pieces and
   * waiting for `out` (a stream's backpressure); holds no more than a piece (a row group in Parquet).
   */
  async write(out: (bytes: Buffer) => void | Promise<void>): Promise<void> {
    const { format, changed } = this.#parts;
    try {
      if (format === "csv") await this.#csv(out);
      else if (format === "parquet") await this.#parquet(out);
      else await this.#json(out);
    } catch (error) {
      // A day rewritten by an ingest since the body began: the body is stale, not the day damaged.
      if (error instanceof DamagedDayError && error.transient && changed()) throw new StaleBodyError();
      throw error;
    }
  }

  #pieces(): RangeRequest[] {
    return piecesOf(this.#parts.view, this.#parts.range);
  }

  // The records' JSON texts joined by commas: kept ones when the view holds them whole.
  #jsonTexts(piece: RangeRequest): string {
    const { view, range, fields } = this.#parts;
    const kept = range.columns === undefined ? view.json?.(piece) : undefined;
    if (kept !== undefined) return kept;
    return view
      .records(piece)
      .map((record) => JSON.stringify(range.columns === undefined ? record : project(record, fields)))
      .join(",");
  }

  // The same bytes as JSON.stringify({ meta, data }), from records serialized once each.
  async #json(out: (bytes: Buffer) => void | Promise<void>): Promise<void> {
    await out(Buffer.from(`{"meta":${this.#parts.meta()},"data":[`));
    let first = true;
    for (const piece of this.#pieces()) {
      await yieldToLoop();
      const text = this.#jsonTexts(piece);
      if (text === "") continue;
      await out(Buffer.from(first ? text : `,${text}`));
      first = false;
    }
    await out(Buffer.from("]}"));
  }

  // Optional fields (grid stress `components`) are written when their option is true.
  #include(): (field: { name: string }) => boolean {
    const { range } = this.#parts;
    return (field) => range.options[field.name] === true;
  }

  async #csv(out: (bytes: Buffer) => void | Promise<void>): Promise<void> {
    const { fields, view } = this.#parts;
    const include = this.#include();
    const header = recordsToCsv([], fields, include);
    await out(Buffer.from(header));
    for (const piece of this.#pieces()) {
      await yieldToLoop();
      const rows = recordsToCsv(view.records(piece), fields, include).slice(header.length);
      if (rows !== "") await out(Buffer.from(rows));
    }
  }

  async #parquet(out: (bytes: Buffer) => void | Promise<void>): Promise<void> {
    // The Parquet writer is loaded by the first Parquet answer: most servers never give one.
    const { ParquetEncoder, parquetColumns } = await import("./parquet.ts");
    const { fields, view, meta } = this.#parts;
    const encoder = new ParquetEncoder(parquetColumns(fields, this.#include()), meta(), out);
    for (const piece of this.#pieces()) {
      await yieldToLoop();
      await encoder.add(view.records(piece));
    }
    await encoder.end();
  }
}
