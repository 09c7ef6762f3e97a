/**
 * What the kinds of dataset differ in: how their records are read. The one answering path
 * (`http/dataset-handler.ts`) takes every range, format, ETag and download name the same way and
 * asks a dataset's reader (`datasets/*-reader.ts`) only for the data: a snapshot per request, and
 * from it the records as they are now or were at `as_of`.
 */
import type { DataRecord, RangeRequest } from "./dataset.ts";

/** The data a dataset's answers read. */
export interface RecordReader {
  /** What is held now: one per request, read before anything else. */
  snapshot(): RecordSnapshot;
  /** Whether an hourly range longer than JSON's bound may stream in CSV and Parquet, piece by piece. */
  readonly streams?: boolean;
}

/** The first instant `as_of` may name, and the words a refusal of an earlier one uses. */
export interface AsOfFloor {
  /** UTC ms, or null when nothing is kept yet. */
  readonly first: number | null;
  /** What the first instant is ("the first recorded ingest"). */
  readonly what: string;
  /** Said when there is none ("the store has no recorded ingest yet"). */
  readonly none: string;
  /** Said before the instant ("it began at"). */
  readonly since: string;
}

/** The data as held when a request came. */
export interface RecordSnapshot {
  /** Changes whenever an answer could: a parsed query and its ETag are kept while it stays. */
  readonly version: string;
  /** Whether the data is generated sample data, not Eskom's. */
  readonly sample: boolean;
  /** When it last changed (UTC ms), for Last-Modified; null when unknown. */
  readonly modified: number | null;
  /** Why nothing of it may be served now (thrown, it is a 503), or undefined. */
  readonly unavailable?: Error;
  /** What the ETag hashes of the data besides the request: the version of what the records read. */
  tag(): unknown;
  /** Further parts of the ETag: the content hashes of what the records of [from, to) read. */
  tagParts?(from: number, to: number): Iterable<string>;
  /** Where `as_of` may begin. */
  asOfFloor(): AsOfFloor;
  /** The records as held now (`asOf` undefined) or at an instant, UTC ms. */
  view(asOf: number | undefined): RecordView;
  /** Whether the data changed since this snapshot: a body rendered in pieces is then stale. */
  changed?(): boolean;
}

/** The records of one answer. */
export interface RecordView {
  /** The records of a piece of the range, in ascending time order. */
  records(piece: RangeRequest): DataRecord[];
  /** Their JSON texts joined by commas, where kept whole (the record cache); else undefined. */
  json?(piece: RangeRequest): string | undefined;
  /** The range in the pieces rendered apart, in order (the event loop runs between them); one by default. */
  pieces?(range: RangeRequest): RangeRequest[];
  /** The `meta` fields after `start` and `end`, in the range's zone: how current the data is. */
  status(range: RangeRequest): Record<string, unknown>;
  /** When what this view reads last changed (UTC ms), for Last-Modified; null when unknown. */
  readonly modified: number | null;
}

/** The pieces a view renders `range` in: its own, or the range whole. */
export function piecesOf(view: RecordView, range: RangeRequest): RangeRequest[] {
  return view.pieces?.(range) ?? [range];
}
