/**
 * The one answering path of every dataset, whatever its kind: validates the range (`range-query.ts`
 * with the dataset's rules), chooses JSON, CSV or Parquet, checks `as_of`, and answers with
 * validators tied to the data: the ETag hashes the request and the version of everything its
 * records read, so a new ingest, download or issue changes it, and a poll within the hour gets a
 * 304 without the records being computed. How records are read is the dataset's reader's
 * (`records/record-reader.ts`); nothing here depends on the kind.
 */
import * as v from "valibot";
import { type DatasetDoc, type DatasetParameter, formatsOf, takes } from "../records/dataset.ts";
import type { RecordReader, RecordSnapshot } from "../records/record-reader.ts";
import { formatInstant, HOUR_MS } from "../time.ts";
import { chooseFormat, type Format, FORMATS } from "./negotiation.ts";
import { type ParsedRange, parseRangeQuery, type RangeRules } from "./range-query.ts";
import type { HeadHandler, RequestContext, RequestHead } from "./router.ts";
import { send, sendStream, VARY_ACCEPT } from "./send.ts";
import { responseFields } from "./response-fields.ts";
import { CONTENT_TYPES, entityTag, envelopeMeta, responseHeaders, streams } from "./dataset-envelope.ts";
import type { FieldDoc } from "../records/dataset.ts";
import { DatasetBody, StaleBodyError } from "./dataset-body.ts";
import type { RenderSlots } from "./render-slots.ts";
import type { Reply } from "./reply.ts";
import { Lru } from "../cache/lru.ts";
import { badRequest } from "./http-error.ts";
import { EntityTag } from "./entity-tag.ts";
import { type Instant, InstantSchema } from "./instant.ts";

/** `format`, accepted by every dataset: it overrides the Accept header. */
export const FORMAT_PARAMETER: DatasetParameter = {
  schema: v.picklist(FORMATS),
  expected: "'json', 'csv' or 'parquet'",
  default: undefined,
  description:
    "json (the default), csv or parquet (Apache Parquet: typed columns, meta in the file's key-value metadata); overrides Accept. csv and parquet stream an hourly range of up to 7320 days.",
};

/** `as_of`, accepted by every dataset: the values as the store held them at that instant. */
export const AS_OF_PARAMETER: DatasetParameter = {
  schema: InstantSchema,
  expected: "an ISO-8601 date-time with an offset (e.g. 2024-01-01T12:00:00Z) or a date",
  default: undefined,
  description:
    "The values as the store held them at this instant, before any later revision (for backtests without look-ahead). Same forms as start, e.g. 2025-06-02T12:00:00Z; not in the future, not before the first recorded ingest.",
  // No `example`: a reference's "try it" fills it in, and a fixed instant is before most stores' history.
};

/** Seconds until the next whole UTC hour, when the next hourly reading can be published. */
export function secondsToNextHour(now: number): number {
  return Math.max(1, Math.ceil((HOUR_MS - (now % HOUR_MS)) / 1000));
}

/** Cache-Control for a response at an instant: private, until the next whole hour. */
export function cacheControlAt(now: number): string {
  return `private, max-age=${secondsToNextHour(now)}`;
}

/** What every dataset's handler shares with the others. */
export interface DatasetHandlerOptions {
  /** How many large bodies may be rendered at once. */
  readonly slots: RenderSlots;
  /** How many whole histories may stream at once (all, without it); the rest wait after their head. */
  readonly streams?: RenderSlots;
  /** How many bodies may be compressed at once (on libuv's pool). */
  readonly compressions: RenderSlots;
  /** Whole response bodies by ETag. */
  readonly responses: Lru<string, Buffer>;
  /** The clock for Cache-Control and `as_of`. */
  readonly now?: () => number;
}

/**
 * How a handler reads its query into a range: a range's parameters (the default), or another
 * shape of query answered as a range (`/latest`'s newest hours); throws a 400.
 */
export type QueryReader = (params: URLSearchParams) => ParsedRange;

interface ParsedQuery {
  /** The snapshot's version and the Accept header it was made for. */
  readonly version: string;
  readonly accept: string | undefined;
  readonly range: ParsedRange;
  readonly format: Format;
  readonly fields: readonly FieldDoc[];
  readonly etag: EntityTag;
}

/** What `dataset` takes of a range query. */
export function rangeRules(dataset: DatasetDoc): RangeRules {
  return {
    id: dataset.id,
    intervals: dataset.intervals,
    settings: (["tz", "agg", "columns"] as const).filter((name) => takes(dataset, name)),
    formats: formatsOf(dataset),
    declines: dataset.declines,
    spanLimit: dataset.spanLimit,
  };
}

// The instant `as_of` names, checked: not in the future, not before what the reader keeps.
function asOfOf(snapshot: RecordSnapshot, asOf: Instant | undefined, now: number): number | undefined {
  if (asOf === undefined) return undefined;
  if (asOf.ms > now) {
    throw badRequest(
      "invalid_parameter",
      `'as_of' is in the future: ${formatInstant(asOf.ms, true)}. Ask for a past instant.`,
    );
  }
  const floor = snapshot.asOfFloor();
  if (floor.first === null || asOf.ms < floor.first) {
    const since = floor.first === null ? floor.none : `${floor.since} ${formatInstant(floor.first, true)}`;
    throw badRequest("invalid_parameter", `'as_of' is before ${floor.what}: ${since}.`);
  }
  return asOf.ms;
}

/** What an answer is made of once its query is parsed. */
interface Answering {
  readonly dataset: DatasetDoc;
  readonly options: DatasetHandlerOptions;
  readonly parsed: ParsedQuery;
  readonly snapshot: RecordSnapshot;
  readonly now: number;
}

// Sends the records of a parsed query: held (and kept by ETag), or streamed when too long to hold.
async function sendAnswer(req: RequestHead, reply: Reply, a: Answering): Promise<void> {
  const { dataset, options, snapshot } = a;
  const { range, format, fields, etag } = a.parsed;
  const asOf = range.options.as_of as Instant | undefined;
  const view = snapshot.view(asOfOf(snapshot, asOf, a.now));
  const { sample } = snapshot;
  const body = new DatasetBody({
    range,
    format,
    view,
    changed: () => snapshot.changed?.() ?? false,
    meta: () => JSON.stringify(envelopeMeta(dataset, range, view, sample, asOf)),
    slots: options.slots,
    fields,
  });
  const representation = {
    body,
    contentType: CONTENT_TYPES[format],
    etag,
    lastModified: view.modified,
    cacheControl: cacheControlAt(a.now),
    vary: VARY_ACCEPT,
    headers: responseHeaders(format, sample, dataset, range),
    compress: format !== "parquet",
    cache: options.responses,
    compressions: options.compressions,
  };
  if (!streams(range, format)) return send(req, reply, representation);
  // A whole history is written as it is made, never held: data changed meanwhile cuts it off.
  const slots = options.streams;
  try {
    await sendStream(req, reply, representation, {
      write: (out) => (slots === undefined ? body.write(out) : slots.run(() => body.write(out))),
      stale: () => snapshot.changed?.() ?? false,
    });
  } catch (error) {
    // Its head is sent: a body gone stale on the way can only be cut off, which is no fault.
    if (!(error instanceof StaleBodyError)) throw error;
    reply.destroy();
  }
}

/** The handler of `dataset`, reading through `reader`; `query` reads other shapes of query (`/latest`). */
export function datasetHandler(
  dataset: DatasetDoc,
  reader: RecordReader,
  options: DatasetHandlerOptions,
  query?: QueryReader,
): HeadHandler {
  const now = options.now ?? Date.now;
  const rules = rangeRules(dataset);
  const offered = formatsOf(dataset);
  const parameters = { format: FORMAT_PARAMETER, as_of: AS_OF_PARAMETER, ...dataset.parameters };
  // A poll repeats its query: what a query parsed to and its ETag (a hash over every stored day it
  // reads: a year of days costs about a millisecond), by query, valid while the data's version and
  // the Accept header are the ones it was made for.
  const parsedQueries = new Lru<string, ParsedQuery>(1_000);

  function parse(params: URLSearchParams, accept: string | undefined, snapshot: RecordSnapshot): ParsedQuery {
    const formatOf = (o: Readonly<Record<string, unknown>>) =>
      chooseFormat(o.format as Format | undefined, accept, offered);
    const range =
      query === undefined
        ? parseRangeQuery(params, parameters, (o) => reader.streams === true && formatOf(o) !== "json", rules)
        : query(params);
    const format = formatOf(range.options);
    const etag = new EntityTag(entityTag(dataset, range, format, snapshot));
    return { version: snapshot.version, accept, range, format, fields: responseFields(dataset, range), etag };
  }

  async function answer(req: RequestHead, reply: Reply, ctx: RequestContext, attempt: number): Promise<void> {
    const snapshot = reader.snapshot();
    const accept = req.headers.accept;
    let parsed = parsedQueries.get(ctx.search);
    if (parsed === undefined || parsed.version !== snapshot.version || parsed.accept !== accept) {
      // A valid query of the newest hours, but nothing may be served now: 503, never an empty answer.
      if (query !== undefined && snapshot.unavailable !== undefined) throw snapshot.unavailable;
      parsed = parse(ctx.url.searchParams, accept, snapshot);
      parsedQueries.set(ctx.search, parsed);
    }
    if (snapshot.unavailable !== undefined) throw snapshot.unavailable;
    try {
      await sendAnswer(req, reply, { dataset, options, parsed, snapshot, now: now() });
    } catch (error) {
      // New data landed while the body was rendered in pieces: answer again from the new data.
      if (error instanceof StaleBodyError && attempt < 2) return answer(req, reply, ctx, attempt + 1);
      throw error;
    }
  }
  return (req, reply, ctx) => answer(req, reply, ctx, 0);
}
