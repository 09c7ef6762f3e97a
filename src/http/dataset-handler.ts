/**
 * Serves one dataset: validates the range, negotiates JSON or CSV, and answers with validators
 * tied to the data: the ETag hashes the request and the content hashes of every stored day the
 * records depend on, so a re-ingest that changes a range changes its ETag, and a poll within the
 * hour gets a 304 without the records being computed.
 */
import { createHash } from "node:crypto";
import * as v from "valibot";
import { type Dataset, type DatasetParameter, firstDayRead } from "../datasets/dataset.ts";
import { type ReadingStore, type StoreSnapshot, StoreUnavailableError } from "../store/reading-store.ts";
import { dayKey, dayRange, DAY_MS, formatInstant, HOUR_MS } from "../time.ts";
import { chooseFormat, type Format, FORMATS } from "./negotiation.ts";
import { type ParsedRange, parseRangeQuery } from "./range-query.ts";
import type { Handler, RequestContext } from "./router.ts";
import { send } from "./send.ts";
import { DatasetBody, StaleBodyError } from "./dataset-body.ts";
import type { RenderSlots } from "./render-slots.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RecordCache } from "../datasets/record-cache.ts";
import { Lru } from "../cache/lru.ts";
import { storeAsOf } from "../store/as-of-view.ts";
import { badRequest } from "./http-error.ts";
import { type Instant, InstantSchema } from "./instant.ts";

/** The `meta.schema_version` of every envelope. */
export const SCHEMA_VERSION = "1.0";

/**
 * The header every answer from a store of generated sample data carries (docs/api.md: "Sample
 * data"), beside `meta.sample` in JSON; CSV readers check it. Answers from real data have neither.
 */
export const SAMPLE_HEADERS: Readonly<Record<string, string>> = { "Data-Source": "sample" };

/** `format`, accepted by every dataset: it overrides the Accept header. */
export const FORMAT_PARAMETER: DatasetParameter = {
  schema: v.picklist(FORMATS),
  expected: "'json' or 'csv'",
  default: undefined,
  description: "json (the default) or csv; overrides Accept.",
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

// Cache-Control for a response at `now`: private, until the next whole hour.
const cacheControlAt = (now: number): string => `private, max-age=${secondsToNextHour(now)}`;

/** The instants the records of a range cover: the range at 1h, its whole days at 1d. */
function covered(range: ParsedRange): { from: number; to: number } {
  return range.interval === "1h" ? { from: range.start, to: range.end } : dayRange(range.start, range.end);
}

function entityTag(dataset: Dataset, range: ParsedRange, format: Format, snapshot: StoreSnapshot): string {
  const { from, to } = covered(range);
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify([
      dataset.id,
      SCHEMA_VERSION,
      dataset.meta(range.interval, range.options),
      range.interval,
      range.start,
      range.end,
      range.startFractional,
      range.endFractional,
      range.options,
      format,
      snapshot.lastActual,
      // Only a sample store's tags change: a real store's stay as they were.
      ...(snapshot.sample ? ["sample"] : []),
    ]),
  );
  for (let day = firstDayRead(dataset, from); day < to; day += DAY_MS)
    hash.update(snapshot.manifest.get(dayKey(day))?.hash ?? "-");
  return hash.digest("base64url").slice(0, 32);
}

function filename(dataset: Dataset, range: ParsedRange): string {
  const stamp = (ms: number) => formatInstant(ms).slice(0, 19).replace(/[-:]/g, "") + "Z";
  return `${dataset.id}_${range.interval}_${stamp(range.start)}_${stamp(range.end)}.csv`;
}

/** What a dataset handler shares with the others. */
export interface DatasetHandlerOptions {
  /** Records per day, serialized once. */
  readonly records: RecordCache;
  /** How many large bodies may be rendered at once. */
  readonly slots: RenderSlots;
  /** How many bodies may be compressed at once (on libuv's pool). */
  readonly compressions: RenderSlots;
  /** Whole response bodies by ETag. */
  readonly responses: Lru<string, Buffer>;
  /** The clock for Cache-Control. */
  readonly now?: () => number;
}

// The envelope's `meta` (docs/api.md: "`meta`").
function envelopeMeta(
  dataset: Dataset,
  range: ParsedRange,
  lastAvailable: number | null,
  sample: boolean,
  asOf?: Instant,
) {
  return {
    dataset: dataset.id,
    interval: range.interval,
    timezone: "UTC",
    schema_version: SCHEMA_VERSION,
    derived: dataset.derived[range.interval],
    ...dataset.meta(range.interval, range.options),
    start: formatInstant(range.start, range.startFractional),
    end: formatInstant(range.end, range.endFractional),
    last_available: lastAvailable === null ? null : formatInstant(lastAvailable),
    data_delay: lastAvailable === null || covered(range).to > lastAvailable + HOUR_MS,
    ...(asOf === undefined ? {} : { as_of: formatInstant(asOf.ms, asOf.fractional) }),
    ...(sample ? { sample: true } : {}),
  };
}

const CSV_TYPE = "text/csv; charset=utf-8";

// The answer's own headers: CSV's file name, and the sample data's mark.
function responseHeaders(format: Format, sample: boolean, dataset: Dataset, range: ParsedRange) {
  if (format !== "csv") return sample ? SAMPLE_HEADERS : undefined;
  const disposition = { "Content-Disposition": `attachment; filename="${filename(dataset, range)}"` };
  return sample ? { ...disposition, ...SAMPLE_HEADERS } : disposition;
}

interface ParsedQuery {
  readonly version: number;
  readonly accept: string | undefined;
  readonly range: ParsedRange;
  readonly format: Format;
  readonly etag: string;
}

/** A handler for `dataset`, reading from `store`. */
export function datasetHandler(
  dataset: Dataset,
  store: ReadingStore,
  options: DatasetHandlerOptions,
): Handler {
  const now = options.now ?? Date.now;
  const parameters = { format: FORMAT_PARAMETER, as_of: AS_OF_PARAMETER, ...dataset.parameters };
  // A poll repeats its query: what a query parsed to and its ETag, by query, valid while the
  // store's version and the Accept header are the ones it was made for.
  const memo = new Lru<string, ParsedQuery>(1_000);
  const handle = (
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    attempt: number,
  ): void | Promise<void> => {
    const snapshot = store.refresh();
    const accept = req.headers.accept;
    let parsed = memo.get(ctx.search);
    if (parsed === undefined || parsed.version !== snapshot.version || parsed.accept !== accept) {
      const range = parseRangeQuery(ctx.url.searchParams, parameters);
      const format = chooseFormat(range.options.format as Format | undefined, accept);
      const etag = entityTag(dataset, range, format, snapshot);
      parsed = { version: snapshot.version, accept, range, format, etag };
      memo.set(ctx.search, parsed);
    }
    // A valid query, but nothing of the store may be served now: 503, never an empty answer.
    if (snapshot.unavailable !== undefined) throw new StoreUnavailableError(snapshot.unavailable);
    const { range, format, etag } = parsed;
    const asOfInstant = range.options.as_of as Instant | undefined;
    const asOf = asOfInstant === undefined ? undefined : storeFor(store, asOfInstant.ms, now());
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
      meta: () => JSON.stringify(envelopeMeta(dataset, range, lastAvailable, sample, asOfInstant)),
      slots: options.slots,
    });
    const sent = send(req, res, {
      body,
      contentType: format === "csv" ? CSV_TYPE : "application/json",
      etag,
      lastModified: snapshot.modified,
      cacheControl: cacheControlAt(now()),
      vary: "Accept",
      headers: responseHeaders(format, sample, dataset, range),
      cache: options.responses,
      compressions: options.compressions,
    });
    // An ingest landed while the body was rendered in pieces: answer again from the new store.
    return sent?.catch((error: unknown): void | Promise<void> => {
      if (error instanceof StaleBodyError && attempt < 2) return handle(req, res, ctx, attempt + 1);
      throw error;
    });
  };
  return (req, res, ctx) => handle(req, res, ctx, 0);
}
