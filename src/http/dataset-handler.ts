/**
 * Serves one dataset: validates the range, negotiates JSON or CSV, and answers with validators
 * tied to the data: the ETag hashes the request and the content hashes of every stored day the
 * records depend on, so a re-ingest that changes a range changes its ETag, and a poll within the
 * hour gets a 304 without the records being computed.
 */
import * as v from "valibot";
import type { Dataset, DatasetParameter } from "../datasets/dataset.ts";
import { type ReadingStore, type StoreSnapshot, StoreUnavailableError } from "../store/reading-store.ts";
import { formatInstant, HOUR_MS } from "../time.ts";
import { chooseFormat, type Format, FORMATS } from "./negotiation.ts";
import { type ParsedRange, parseRangeQuery } from "./range-query.ts";
import type { Handler, RequestContext } from "./router.ts";
import { send, sendStream, VARY_ACCEPT } from "./send.ts";
import { responseFields } from "./columns.ts";
import { parseLatestQuery } from "./latest.ts";
import { CONTENT_TYPES, entityTag, envelopeMetaText, responseHeaders, streams } from "./dataset-envelope.ts";
import type { FieldDoc } from "../datasets/dataset.ts";
import { DatasetBody, StaleBodyError } from "./dataset-body.ts";
import type { RenderSlots } from "./render-slots.ts";
import type { IncomingMessage } from "node:http";
import type { Reply } from "./reply.ts";
import type { RecordCache } from "../datasets/record-cache.ts";
import { Lru } from "../cache/lru.ts";
import { storeAsOf } from "../store/as-of-view.ts";
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

// The store as the request sees it: as it is, or as it was at `as_of` (checked against the history).
function storeFor(store: ReadingStore, asOf: number | undefined, now: number): ReadingStore {
  if (asOf === undefined) return store;
  if (asOf > now) {
    throw badRequest(
      "invalid_parameter",
      `'as_of' is in the future: ${formatInstant(asOf, true)}. Ask for a past instant.`,
    );
  }
  const history = store.history();
  if (history.began === null || asOf < history.began) {
    const since =
      history.began === null
        ? "the store has no recorded ingest yet"
        : `it began at ${formatInstant(history.began, true)}`;
    throw badRequest("invalid_parameter", `'as_of' is before the first recorded ingest: ${since}.`);
  }
  return storeAsOf(store, history, asOf);
}

/** Seconds until the next whole UTC hour, when the next hourly reading can be published. */
export function secondsToNextHour(now: number): number {
  return Math.max(1, Math.ceil((HOUR_MS - (now % HOUR_MS)) / 1000));
}

/** Cache-Control for a response at an instant: private, until the next whole hour. */
export function cacheControlAt(now: number): string {
  return `private, max-age=${secondsToNextHour(now)}`;
}

/** What a dataset handler shares with the others. */
export interface DatasetHandlerOptions {
  /** Records per day, serialized once. */
  readonly records: RecordCache;
  /** How many large bodies may be rendered at once. */
  readonly slots: RenderSlots;
  /** How many whole histories may stream at once (all, without it); the rest wait after their head. */
  readonly streams?: RenderSlots;
  /** How many bodies may be compressed at once (on libuv's pool). */
  readonly compressions: RenderSlots;
  /** Whole response bodies by ETag. */
  readonly responses: Lru<string, Buffer>;
  /** The clock for Cache-Control. */
  readonly now?: () => number;
}

interface ParsedQuery {
  /** The store version and Accept header it was made for. */
  readonly version: number;
  readonly accept: string | undefined;
  readonly range: ParsedRange;
  readonly format: Format;
  readonly fields: readonly FieldDoc[];
  readonly etag: EntityTag;
  /** When the store version was made (UTC ms). */
  readonly modified: number | null;
}

/** How a handler reads its query: a range (`start`, `end`), or the newest hours (`/latest`). */
export type QueryKind = "range" | "latest";

// What a query parses to; throws a 400.
function parseQuery(
  dataset: Dataset,
  store: ReadingStore,
  params: URLSearchParams,
  accept: string | undefined,
  kind: QueryKind,
): Omit<ParsedQuery, "version" | "accept" | "etag" | "modified"> {
  const parameters = { format: FORMAT_PARAMETER, as_of: AS_OF_PARAMETER, ...dataset.parameters };
  const formatOf = (options: Readonly<Record<string, unknown>>) =>
    chooseFormat(options.format as Format | undefined, accept);
  const range =
    kind === "latest"
      ? parseLatestQuery(params, dataset, store, { format: FORMAT_PARAMETER, ...dataset.parameters })
      : parseRangeQuery(params, parameters, (o) => formatOf(o) !== "json");
  const format = formatOf(range.options);
  return { range, format, fields: responseFields(dataset, range) };
}

/** A handler for `dataset`, reading from `store`: its ranges, or with `kind` "latest" its newest hours. */
export function datasetHandler(
  dataset: Dataset,
  store: ReadingStore,
  options: DatasetHandlerOptions,
  kind: QueryKind = "range",
): Handler {
  const now = options.now ?? Date.now;
  // A poll repeats its query: what a query parsed to and its ETag (a hash over every stored day it
  // reads: a year of days costs about a millisecond), by query, valid while the store's version
  // and the Accept header are the ones it was made for.
  const parsedQueries = new Lru<string, ParsedQuery>(1_000);
  const handle = (
    req: IncomingMessage,
    reply: Reply,
    ctx: RequestContext,
    attempt: number,
  ): void | Promise<void> => {
    const snapshot = store.refresh();
    const accept = req.headers.accept;
    let parsed = parsedQueries.get(ctx.search);
    if (parsed === undefined || parsed.version !== snapshot.version || parsed.accept !== accept) {
      // A valid query, but nothing of the store may be served now: 503, never an empty answer.
      if (kind === "latest" && snapshot.unavailable !== undefined)
        throw new StoreUnavailableError(snapshot.unavailable);
      const query = parseQuery(dataset, store, ctx.url.searchParams, accept, kind);
      const etag = new EntityTag(entityTag(dataset, query.range, query.format, snapshot));
      parsed = { ...query, version: snapshot.version, accept, etag, modified: snapshot.modified };
      parsedQueries.set(ctx.search, parsed);
    }
    if (snapshot.unavailable !== undefined) throw new StoreUnavailableError(snapshot.unavailable);
    const sent = answer(req, reply, { dataset, store, options, parsed, snapshot, now: now() });
    // An ingest landed while the body was rendered in pieces: answer again from the new store.
    return sent?.catch((error: unknown): void | Promise<void> => {
      if (error instanceof StaleBodyError && attempt < 2) return handle(req, reply, ctx, attempt + 1);
      throw error;
    });
  };
  return (req, reply, ctx) => handle(req, reply, ctx, 0);
}

interface Answering {
  readonly dataset: Dataset;
  readonly store: ReadingStore;
  readonly options: DatasetHandlerOptions;
  readonly parsed: ParsedQuery;
  readonly snapshot: StoreSnapshot;
  readonly now: number;
}

// Sends the records of a parsed query: held (and kept by ETag), or streamed when too long to hold.
function answer(req: IncomingMessage, reply: Reply, a: Answering): void | Promise<void> {
  const { dataset, store, options, snapshot } = a;
  const { range, format, fields, etag } = a.parsed;
  const asOfInstant = range.options.as_of as Instant | undefined;
  const asOf = asOfInstant === undefined ? undefined : storeFor(store, asOfInstant.ms, a.now);
  const lastAvailable = asOf === undefined ? snapshot.lastActual : asOf.refresh().lastActual;
  const { sample } = snapshot;
  const body = new DatasetBody({
    dataset,
    range,
    format,
    recordCache: options.records,
    store,
    asOf,
    version: snapshot.version,
    meta: envelopeMetaText(dataset, range, lastAvailable, sample, asOfInstant),
    slots: options.slots,
    fields,
  });
  const representation = {
    body,
    contentType: CONTENT_TYPES[format],
    etag,
    lastModified: a.parsed.modified,
    cacheControl: cacheControlAt(a.now),
    vary: VARY_ACCEPT,
    headers: responseHeaders(format, sample, dataset, range),
    compress: format !== "parquet",
    cache: options.responses,
    compressions: options.compressions,
  };
  // A whole history is written as it is made, never held: a store changed meanwhile cuts it off.
  if (streams(range, format)) {
    const streamed = sendStream(req, reply, representation, {
      write: (out) =>
        options.streams === undefined ? body.write(out) : options.streams.run(() => body.write(out)),
      stale: () => store.changedSince(snapshot.version),
    });
    // Its head is sent: a body gone stale on the way can only be cut off, which is no fault.
    return streamed.catch((error: unknown) => {
      if (!(error instanceof StaleBodyError)) throw error;
      reply.res.destroy();
    });
  }
  return send(req, reply, representation);
}
