/** What every dataset endpoint has in common: its identity, its fields and how it computes records. */
import type { ReadingStore } from "../store/reading-store.ts";

/** The two resolutions a range can be asked for. */
export type Interval = "1h" | "1d";

/** A served record: `ts` or `date` first, then the dataset's fields. */
export type DataRecord = Record<string, string | number | null>;

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
  /** Extra `meta` fields, after the common ones, for an interval. */
  meta(interval: Interval): Readonly<Record<string, unknown>>;
  /** The records of a range, in ascending time order. */
  records(store: ReadingStore, request: RangeRequest): DataRecord[];
}
