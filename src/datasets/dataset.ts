/** What every dataset endpoint has in common: its identity, its fields and how it computes records. */
import type * as v from "valibot";
import type { ReadingStore } from "../store/reading-store.ts";

/** The two resolutions a range can be asked for. */
export type Interval = "1h" | "1d";

/** A served record: `ts` or `date` first, then the dataset's fields (grid stress nests `components`). */
export type DataRecord = Record<string, string | number | null | Readonly<Record<string, number | null>>>;

/** A query parameter of one dataset besides the range: its schema turns the raw string into a value. */
export interface DatasetParameter {
  readonly schema: v.GenericSchema<string, unknown>;
  /** What the value may be, for the error detail. */
  readonly expected: string;
  readonly default: unknown;
}

/** A validated request for a range of a dataset. */
export interface RangeRequest {
  /** Requested instants, UTC ms; the range is [start, end). */
  readonly start: number;
  readonly end: number;
  readonly interval: Interval;
  /** Dataset-specific options, already validated (e.g. grid stress `components`). */
  readonly options: Readonly<Record<string, unknown>>;
}

/** A dataset the service serves at one path. */
export interface Dataset {
  /** `meta.dataset`. */
  readonly id: string;
  readonly path: string;
  /** The limiter scope that counts its requests. */
  readonly scope: string;
  /** Query parameters besides `start`, `end` and `interval`. */
  readonly parameters?: Readonly<Record<string, DatasetParameter>>;
  /** Extra `meta` fields, after the common ones, for an interval. */
  meta(interval: Interval): Readonly<Record<string, unknown>>;
  /** The records of a range, in ascending time order. */
  records(store: ReadingStore, request: RangeRequest): DataRecord[];
}
