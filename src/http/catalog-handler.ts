/**
 * `GET /api/v1/datasets`: what exists, without reading source code: every dataset with its path,
 * intervals, fields (type, unit, meaning), the caller's limit in its scope, and what the store
 * holds (first and last hour, newest actual hour, last ingest).
 */
import { type DatasetDoc, type FieldDoc, formatsOf, intervalsOf, takes } from "../records/dataset.ts";
import { aggregatesOf } from "../records/aggregates.ts";
import { REQUEST_INTERVALS } from "./range-query.ts";
import { WINDOW_MS } from "../limits/scopes.ts";
import { type ReadingStore, type StoreSnapshot, StoreUnavailableError } from "../store/reading-store.ts";
import { dayStart, formatInstant, HOUR_MS } from "../time.ts";
import { SAMPLE_HEADERS, SCHEMA_VERSION } from "./dataset-envelope.ts";
import { FORMATS } from "./negotiation.ts";
import * as v from "valibot";
import type { RouteDoc } from "./route-doc.ts";
import type { HeadHandler } from "./router.ts";

const described = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.pipe(schema, v.description(description));

// A field as described below (`describeField`); members of an object field nest one level.
const FIELD_ENTRIES = {
  name: v.string(),
  label: v.optional(v.string()),
  type: v.picklist(["string", "number", "integer", "object"]),
  unit: v.optional(v.string()),
  format: v.optional(v.picklist(["date-time", "date"])),
  nullable: v.boolean(),
  optional: v.optional(v.boolean()),
  description: v.string(),
  aggregates: v.optional(v.array(v.picklist(["mean", "min", "max", "sum"]))),
  source_columns: v.optional(v.array(v.string())),
};
const FieldDescription = v.object({
  ...FIELD_ENTRIES,
  properties: v.optional(v.array(v.object(FIELD_ENTRIES))),
});

/** The body. */
export const CatalogBody = v.object({
  schema_version: v.literal(SCHEMA_VERSION),
  datasets: v.array(
    v.object({
      id: described(v.string(), "`meta.dataset`."),
      title: described(v.string(), "Its name for people."),
      kind: described(
        v.picklist(["readings", "computed", "periods", "issues", "outlook"]),
        "How its records are read: the portal's hourly readings, computed from other datasets' hours, Eskom's published periods, the issues of a forecast, or an outlook issued from the store as it stood at an instant (no start or end).",
      ),
      path: described(v.string(), "The endpoint."),
      description: described(v.string(), "What it serves."),
      intervals: v.array(v.picklist(REQUEST_INTERVALS)),
      derived: v.record(v.string(), v.boolean()),
      scope: described(v.string(), "The limiter scope."),
      limit: v.object({
        requests: v.nullable(v.pipe(v.number(), v.integer())),
        window_seconds: v.literal(WINDOW_MS / 1000),
      }),
      parameters: v.array(v.string()),
      formats: v.optional(v.array(v.picklist(FORMATS))),
      fields: described(
        v.record(v.string(), v.array(FieldDescription)),
        "Per interval, the record fields in served order.",
      ),
      sources: described(
        v.array(
          v.object({
            file: v.string(),
            kind: v.picklist(["csv", "powerbi"]),
            state: v.picklist(["current", "late", "stopped"]),
            newest_hour: v.nullable(v.string()),
            last_publication: v.nullable(v.string()),
          }),
        ),
        "The portal files it is read from that the pulls keep, each followed by the PowerBI report read in its stead once it stopped (kind `powerbi`, docs/data.md), with each one's state (current, late, stopped: see /healthz) and the newest hour it brought; empty for a store no pull keeps.",
      ),
      newest_source: described(
        v.nullable(v.string()),
        "Of those, the file whose data reaches furthest: where its newest hour came from.",
      ),
    }),
  ),
  coverage: v.object({
    first_hour: described(v.nullable(v.string()), "The first stored hour."),
    last_hour: described(v.nullable(v.string()), "The last stored hour."),
    last_available: described(v.nullable(v.string()), "The newest actual hour."),
  }),
  last_ingest: described(v.nullable(v.string()), "When an ingest last changed the store."),
  sample: v.optional(
    described(
      v.literal(true),
      "Present when the store holds generated sample data, not Eskom's: every dataset answer says so too.",
    ),
  ),
});

/** The route's operation in the OpenAPI document. */
export const CATALOG_OPERATION: RouteDoc = {
  operationId: "listDatasets",
  summary: "Every dataset with its fields, units, intervals and limits, and what the store holds.",
  tags: ["metadata"],
  responses: {
    "200": {
      description: "The catalog.",
      headers: ["X-Request-Id", "RateLimit", "RateLimit-Policy", "Data-Source"],
      body: CatalogBody,
      bodyName: "Catalog",
    },
    "401": "Unauthorized",
    "405": "MethodNotAllowed",
    "429": "TooManyRequests",
  },
};
import { send } from "./send.ts";
import { type SourceFreshness, storeFreshness } from "../pull/source-freshness.ts";
import { STALE_AFTER_MS } from "./health-handler.ts";

// The dataset's portal files the pulls keep (and the PowerBI report read in a stopped one's
// stead), and the one whose data reaches furthest.
function datasetSources(files: readonly string[], all: readonly SourceFreshness[]) {
  const sources = files.flatMap((name) =>
    all
      .filter((s) => (s.stands_in_for ?? s.file) === name)
      .map(({ file, kind, state, newest_hour, last_publication }) => ({
        file,
        kind,
        state,
        newest_hour,
        last_publication,
      })),
  );
  // Between files that reach the same hour, one that still publishes.
  const newest = sources
    .filter((s) => s.newest_hour !== null)
    .sort(
      (a, b) =>
        Date.parse(b.newest_hour!) - Date.parse(a.newest_hour!) ||
        Number(a.state === "stopped") - Number(b.state === "stopped"),
    )[0];
  return { sources, newest_source: newest?.file ?? null };
}

function describeField(field: FieldDoc): Record<string, unknown> {
  return {
    name: field.name,
    ...(field.label ? { label: field.label } : {}),
    type: field.type,
    ...(field.unit ? { unit: field.unit } : {}),
    ...(field.format ? { format: field.format } : {}),
    nullable: field.nullable ?? false,
    ...(field.optional ? { optional: true } : {}),
    description: field.description,
    ...(field.properties ? { properties: field.properties.map(describeField) } : {}),
  };
}

// An hourly field, with the aggregates it allows over a day or longer (`agg`), when any.
function describeHourly(field: FieldDoc): Record<string, unknown> {
  const aggregates = field.format === "date-time" ? [] : aggregatesOf(field);
  return {
    ...describeField(field),
    ...(aggregates.length > 0 ? { aggregates } : {}),
    ...(field.columns === undefined ? {} : { source_columns: field.columns }),
  };
}

/** The first and last stored hour, found in the first and last day files. */
function coverage(
  store: ReadingStore,
  snapshot: StoreSnapshot,
): { first_hour: string | null; last_hour: string | null } {
  const keys = [...snapshot.manifest.keys()];
  if (keys.length === 0) return { first_hour: null, last_hour: null };
  const hourOf = (key: string, pick: "first" | "last") => {
    const hours = store.day(key)!.hours;
    const index =
      pick === "first"
        ? hours.findIndex((r) => r !== undefined)
        : hours.findLastIndex((r) => r !== undefined);
    return formatInstant(dayStart(key) + index * HOUR_MS);
  };
  return { first_hour: hourOf(keys[0]!, "first"), last_hour: hourOf(keys.at(-1)!, "last") };
}

// A dataset of published periods has no hours: its one interval names its fields.
const periodsOnly = (dataset: DatasetDoc) =>
  dataset.fields["1h"].length === 0 && dataset.intervals !== undefined;

/** The catalog handler for `datasets`, each read from the portal files `sourcesOf` names. */
export function catalogHandler<D extends DatasetDoc>(
  datasets: readonly D[],
  store: ReadingStore,
  sourcesOf: (dataset: D) => readonly string[],
  options: { now?: () => number; staleAfterMs?: number } = {},
): HeadHandler {
  const now = options.now ?? Date.now;
  return async (req, reply, ctx) => {
    const snapshot = store.refresh();
    if (snapshot.unavailable !== undefined) throw new StoreUnavailableError(snapshot.unavailable);
    const fresh = storeFreshness(
      store.dir,
      snapshot.lastActual,
      now(),
      options.staleAfterMs ?? STALE_AFTER_MS,
    );
    const body = {
      schema_version: SCHEMA_VERSION,
      datasets: datasets.map((dataset) => ({
        id: dataset.id,
        title: dataset.title,
        kind: dataset.kind,
        path: dataset.path,
        description: dataset.description,
        intervals: intervalsOf(dataset),
        derived: periodsOnly(dataset) ? { [dataset.intervals![0]!]: dataset.derived["1d"] } : dataset.derived,
        scope: dataset.scope,
        limit: { requests: ctx.limitFor?.(dataset.scope) ?? null, window_seconds: WINDOW_MS / 1000 },
        parameters: [
          "start",
          "end",
          "interval",
          ...(["tz", "agg", "columns"] as const).filter((setting) => takes(dataset, setting)),
          "format",
          "as_of",
          ...Object.keys(dataset.parameters ?? {}),
        ],
        formats: formatsOf(dataset),
        fields: periodsOnly(dataset)
          ? { [dataset.intervals![0]!]: dataset.fields["1d"].map(describeField) }
          : { "1h": dataset.fields["1h"].map(describeHourly), "1d": dataset.fields["1d"].map(describeField) },
        ...datasetSources(sourcesOf(dataset), fresh.sources),
      })),
      coverage: {
        ...coverage(store, snapshot),
        last_available: snapshot.lastActual === null ? null : formatInstant(snapshot.lastActual),
      },
      last_ingest: snapshot.modified === null ? null : new Date(snapshot.modified).toISOString(),
      ...(snapshot.sample ? { sample: true } : {}),
    };
    await send(req, reply, {
      body: JSON.stringify(body),
      contentType: "application/json",
      cacheControl: "private, no-cache",
      ...(snapshot.sample ? { headers: SAMPLE_HEADERS } : {}),
    });
  };
}
