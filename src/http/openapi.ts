/**
 * The OpenAPI 3.1 document, assembled from what the code itself declares, so it cannot drift:
 * the dataset tables (fields, parameters, meta), the query parameters' valibot schemas, and the
 * `RouteDoc` of every other route (its body schemas are the valibot schemas of what it sends).
 * Only what no route owns is written here: headers, shared error responses and the key scheme.
 */
import * as v from "valibot";
import { type Dataset, type FieldDoc, type Interval, INTERVALS } from "../datasets/dataset.ts";
import { CATALOG_ROUTE } from "./catalog-handler.ts";
import { AS_OF_PARAMETER, FORMAT_PARAMETER, SCHEMA_VERSION } from "./dataset-handler.ts";
import { HEALTH_ROUTE } from "./health-handler.ts";
import { BAD_REQUEST_CODES } from "./http-error.ts";
import { MAX_SPAN_DAYS, RANGE_PARAMETERS } from "./range-query.ts";
import { jsonSchema, type QueryParameter, type RouteDoc, type Schema } from "./route-doc.ts";

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

function fieldSchema(field: FieldDoc): Schema {
  const unit = field.unit ? ` Unit: ${field.unit}.` : "";
  const schema: Schema = {
    type: field.nullable ? [field.type, "null"] : field.type,
    description: field.description + unit,
  };
  if (field.unit) schema["x-unit"] = field.unit;
  if (field.format) schema.format = field.format;
  if (field.enum) schema.enum = field.nullable ? [...field.enum, null] : [...field.enum];
  if (field.minimum !== undefined) schema.minimum = field.minimum;
  if (field.maximum !== undefined) schema.maximum = field.maximum;
  if (field.properties) Object.assign(schema, objectSchema(field.properties));
  return schema;
}

function objectSchema(fields: readonly FieldDoc[]): Schema {
  return {
    properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])),
    required: fields.filter((f) => !f.optional).map((f) => f.name),
    additionalProperties: false,
  };
}

function schemaName(dataset: Dataset, interval: Interval, suffix: string): string {
  const base = dataset.id
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
  return `${base}${interval === "1h" ? "Hourly" : "Daily"}${suffix}`;
}

function metaSchema(dataset: Dataset, interval: Interval): Schema {
  const extra = dataset.meta(interval);
  const instant = {
    type: "string",
    pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{3})?\\+00:00$",
  };
  const properties: Record<string, Schema> = {
    dataset: { const: dataset.id },
    interval: { const: interval, description: "The requested resolution." },
    timezone: { const: "UTC" },
    schema_version: { const: SCHEMA_VERSION },
    derived: { const: dataset.derived[interval], description: "Whether the service computed the values." },
    ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, { const: v }])),
    start: { ...instant, description: "The requested start, in UTC." },
    end: { ...instant, description: "The requested end (excluded), in UTC." },
    last_available: {
      type: ["string", "null"],
      description: "The newest hour holding an actual (not forecast) reading; null on an empty store.",
    },
    data_delay: { type: "boolean", description: "True when the range reaches past last_available." },
  };
  const asOf = { ...instant, description: "With as_of: the instant the values are as of, in UTC." };
  const sample = {
    const: true,
    description:
      "Present only when the store holds generated sample data, not Eskom's (also the Data-Source: sample header).",
  };
  return {
    type: "object",
    properties: { ...properties, as_of: asOf, sample },
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

const HEADERS: Record<string, Schema> = {
  "X-Request-Id": {
    description: "An id for this request (yours, if you sent a sane one).",
    schema: { type: "string" },
  },
  "Retry-After": {
    description: "Whole seconds (at least 1) until the oldest counted request leaves the 60 s window.",
    schema: { type: "integer", minimum: 1 },
  },
  RateLimit: {
    description:
      'IETF draft-ietf-httpapi-ratelimit-headers: `"<scope>";r=<remaining>;t=<seconds until the oldest counted request leaves>`.',
    schema: { type: "string" },
  },
  "RateLimit-Policy": {
    description: 'IETF draft-ietf-httpapi-ratelimit-headers: `"<scope>";q=<limit>;w=60`.',
    schema: { type: "string" },
  },
  ETag: {
    description:
      "Strong validator of the representation; it changes when an ingest changes the range's data.",
    schema: { type: "string" },
  },
  "Last-Modified": { description: "When an ingest last changed the store.", schema: { type: "string" } },
  "Cache-Control": {
    description: "`private, max-age=<seconds until the next whole UTC hour>`: data is published hourly.",
    schema: { type: "string" },
  },
  Vary: { description: "`Accept, Accept-Encoding`.", schema: { type: "string" } },
  "Data-Source": {
    description:
      "`sample` when the store holds generated sample data, not Eskom's; absent for real data. Check it when reading CSV.",
    schema: { const: "sample" },
  },
  "Content-Disposition": {
    description: 'For CSV: `attachment; filename="<dataset>_<interval>_<start>_<end>.csv"`.',
    schema: { type: "string" },
  },
  "WWW-Authenticate": { description: "`X-API-KEY`: the key scheme.", schema: { type: "string" } },
  Allow: { description: "The methods the path answers: `GET, HEAD`.", schema: { type: "string" } },
};

const headers = (...names: string[]) => Object.fromEntries(names.map((n) => [n, ref("headers", n)]));

const RATE = ["X-Request-Id", "RateLimit", "RateLimit-Policy"];

function detailResponse(description: string, example: string, extraHeaders: string[] = []): Schema {
  return {
    description,
    headers: headers("X-Request-Id", ...extraHeaders),
    content: { "application/json": { schema: ref("schemas", "Detail"), example: { detail: example } } },
  };
}

/** The query parameters every dataset accepts, shared under `#/components/parameters`. */
const SHARED_PARAMETERS: Readonly<Record<string, QueryParameter>> = {
  ...RANGE_PARAMETERS,
  format: FORMAT_PARAMETER,
  as_of: AS_OF_PARAMETER,
};

function parameter(name: string, p: QueryParameter): Schema {
  const schema = {
    ...jsonSchema(p.schema),
    ...(p.default === undefined ? {} : { default: String(p.default) }),
  };
  return {
    name,
    in: "query",
    required: p.required ?? false,
    description: p.description,
    schema,
    ...(p.example === undefined ? {} : { example: p.example }),
  };
}

const SHARED_RESPONSES: Record<string, Schema> = {
  NotModified: {
    description: "Your copy is current (If-None-Match, or If-Modified-Since without it).",
    headers: headers("X-Request-Id", "ETag", "Last-Modified", "Cache-Control", "Vary"),
  },
  BadRequest: {
    description: "The query is invalid.",
    headers: headers(...RATE),
    content: { "application/json": { schema: ref("schemas", "BadRequest") } },
  },
  Unauthorized: detailResponse(
    "No key (`Authentication credentials were not provided.`), or an unknown or revoked one (`Invalid API key.`). Never counted.",
    "Invalid API key.",
    ["WWW-Authenticate"],
  ),
  MethodNotAllowed: detailResponse("A method other than GET or HEAD.", 'Method "POST" not allowed.', [
    "Allow",
    ...RATE.slice(1),
  ]),
  TooManyRequests: detailResponse(
    "Over the key's limit in this scope. Not counted.",
    "Request was throttled. Expected available in 12 seconds.",
    ["Retry-After", ...RATE.slice(1)],
  ),
  NotFound: detailResponse("Unknown path.", "Not found."),
  InternalError: detailResponse("A bug; the cause is logged, never sent.", "Internal server error."),
  DamagedData: detailResponse(
    "A stored day the range needs does not match the store's record of it (a damaged file): it is never served as data until re-ingested.",
    "The stored data for 2025-06-10 is damaged and is not served until it is repaired; the operator has been alerted. Try again later.",
    ["Retry-After"],
  ),
};

const ERROR_SCHEMAS: Record<string, Schema> = {
  Detail: jsonSchema(v.strictObject({ detail: v.string() })),
  BadRequest: jsonSchema(
    v.strictObject({
      error: v.pipe(
        v.picklist(BAD_REQUEST_CODES),
        v.description(`When several apply, the first of: ${BAD_REQUEST_CODES.join(", ")}.`),
      ),
      detail: v.pipe(v.string(), v.description("A sentence saying what is wrong and how to fix it.")),
    }),
  ),
};

const scopeText = (scope: string, limits: Readonly<Record<string, number>>) =>
  `Scope \`${scope}\`: ${limits[scope]} requests per key in any 60 seconds by default.`;

// The record and envelope schemas of a dataset at each interval; returns the envelopes' refs.
function datasetSchemas(dataset: Dataset, schemas: Record<string, Schema>): Schema[] {
  return INTERVALS.map((interval) => {
    const record = schemaName(dataset, interval, "Record");
    const envelope = schemaName(dataset, interval, "Envelope");
    schemas[record] = { type: "object", ...objectSchema(dataset.fields[interval]) };
    schemas[envelope] = {
      type: "object",
      properties: {
        meta: metaSchema(dataset, interval),
        data: {
          type: "array",
          items: ref("schemas", record),
          description: "Records in ascending time order.",
        },
      },
      required: ["meta", "data"],
      additionalProperties: false,
    };
    return ref("schemas", envelope);
  });
}

const DATASET_RESPONSES = {
  "304": "NotModified",
  "400": "BadRequest",
  "401": "Unauthorized",
  "405": "MethodNotAllowed",
  "429": "TooManyRequests",
  "500": "InternalError",
  "503": "DamagedData",
};

function datasetOperation(dataset: Dataset, limits: Readonly<Record<string, number>>, envelopes: Schema[]) {
  const own = Object.entries(dataset.parameters ?? {}).map(([name, p]) => parameter(name, p));
  const ok = {
    description: "The records of the range; JSON by default, CSV with format=csv or Accept: text/csv.",
    headers: headers(
      ...RATE,
      "ETag",
      "Last-Modified",
      "Cache-Control",
      "Vary",
      "Content-Disposition",
      "Data-Source",
    ),
    content: {
      "application/json": { schema: { oneOf: envelopes } },
      "text/csv": {
        schema: {
          type: "string",
          description: "A header row (ts or date first), one row per record, empty cells for nulls.",
        },
      },
    },
  };
  return {
    operationId: `get${schemaName(dataset, "1h", "").replace(/Hourly$/, "")}`,
    summary: dataset.description,
    description: `${scopeText(dataset.scope, limits)} A 304 counts like any allowed request.`,
    tags: ["datasets"],
    parameters: [...Object.keys(SHARED_PARAMETERS).map((name) => ref("parameters", name)), ...own],
    responses: {
      "200": ok,
      ...Object.fromEntries(
        Object.entries(DATASET_RESPONSES).map(([s, name]) => [s, ref("responses", name)]),
      ),
    },
  };
}

// The operation of a documented route; named body schemas go to `schemas`.
function routeOperation(
  route: RouteDoc,
  limits: Readonly<Record<string, number>>,
  schemas: Record<string, Schema>,
) {
  const responses = Object.entries(route.responses).map(([status, doc]) => {
    if (typeof doc === "string") return [status, ref("responses", doc)];
    let schema: Schema | undefined;
    if (doc.body !== undefined) {
      schema = jsonSchema(doc.body);
      if (doc.bodyName !== undefined) {
        schemas[doc.bodyName] = schema;
        schema = ref("schemas", doc.bodyName);
      }
    }
    return [
      status,
      {
        description: doc.description,
        ...(doc.headers ? { headers: headers(...doc.headers) } : {}),
        ...(schema ? { content: { "application/json": { schema } } } : {}),
      },
    ];
  });
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.scope ? { description: scopeText(route.scope, limits) } : {}),
    ...(route.open ? { security: [] } : {}),
    tags: route.tags,
    responses: Object.fromEntries(responses) as Schema,
  };
}

const DOCUMENT_HEADERS = ["X-Request-Id", "ETag", "Cache-Control", "Vary"];

/** This document's own route. */
export const OPENAPI_ROUTE: RouteDoc = {
  path: "/api/v1/openapi.json",
  operationId: "openapi",
  summary: "This document; no key needed.",
  tags: ["metadata"],
  open: true,
  responses: {
    "200": {
      description: "The OpenAPI 3.1 document.",
      headers: DOCUMENT_HEADERS,
      body: v.record(v.string(), v.unknown()),
    },
    "304": { description: "Your copy is current (If-None-Match).", headers: DOCUMENT_HEADERS },
  },
};

const ROUTES: readonly RouteDoc[] = [CATALOG_ROUTE, HEALTH_ROUTE, OPENAPI_ROUTE];

const INFO = {
  title: "Grid Data Service",
  version: "1.0.0",
  summary: "South Africa's power-grid data (Eskom Data Portal), hourly or daily, for a time range.",
  description:
    "Ranges are half-open, [start, end), in UTC. start and end are ISO-8601 date-times with an offset, or dates. " +
    `The longest span is ${MAX_SPAN_DAYS["1h"]} days at 1h and ${MAX_SPAN_DAYS["1d"]} days at 1d. ` +
    "Checks run in this order: unknown path (404), key (401), limit (429), method (405), query (400).",
};

const API_KEY = {
  type: "apiKey",
  in: "header",
  name: "X-API-KEY",
  description:
    "A key from `npm run --silent keys -- create`. Limits are per key and scope over a rolling 60 s.",
};

/** The document for `datasets` with the given default limits per scope. */
export function buildOpenApi(datasets: readonly Dataset[], limits: Readonly<Record<string, number>>): Schema {
  const schemas: Record<string, Schema> = { ...ERROR_SCHEMAS };
  const paths: Record<string, Schema> = {};
  for (const dataset of datasets) {
    paths[dataset.path] = { get: datasetOperation(dataset, limits, datasetSchemas(dataset, schemas)) };
  }
  for (const route of ROUTES) paths[route.path] = { get: routeOperation(route, limits, schemas) };
  return {
    openapi: "3.1.0",
    info: INFO,
    security: [{ ApiKey: [] }],
    tags: [
      { name: "datasets", description: "Time series for a range." },
      { name: "metadata", description: "What exists, and whether the service is up." },
    ],
    paths,
    components: {
      securitySchemes: { ApiKey: API_KEY },
      parameters: Object.fromEntries(Object.entries(SHARED_PARAMETERS).map(([n, p]) => [n, parameter(n, p)])),
      headers: HEADERS,
      schemas,
      responses: SHARED_RESPONSES,
    },
  };
}
