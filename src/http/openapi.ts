/**
 * The OpenAPI 3.1 document, built from the same dataset definitions the handlers serve, so the
 * document cannot drift from the code: every endpoint, parameter, field (type, unit, meaning),
 * error body, status and header, and the key scheme.
 */
import type { Dataset, FieldDoc, Interval } from "../datasets/dataset.ts";
import { BAD_REQUEST_CODES } from "./http-error.ts";
import { MAX_SPAN_DAYS } from "./range-query.ts";
import { SCHEMA_VERSION } from "./dataset-handler.ts";
import { FORMATS } from "./negotiation.ts";

type Schema = Record<string, unknown>;

const INTERVALS: readonly Interval[] = ["1h", "1d"];
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
  return {
    type: "object",
    properties: { ...properties, as_of: asOf },
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

/** The document for `datasets` with the given default limits per scope. */
export function buildOpenApi(datasets: readonly Dataset[], limits: Readonly<Record<string, number>>): Schema {
  const schemas: Record<string, Schema> = {
    Detail: {
      type: "object",
      properties: { detail: { type: "string" } },
      required: ["detail"],
      additionalProperties: false,
    },
    BadRequest: {
      type: "object",
      properties: {
        error: {
          enum: [...BAD_REQUEST_CODES],
          description: `When several apply, the first of: ${BAD_REQUEST_CODES.join(", ")}.`,
        },
        detail: { type: "string", description: "A sentence saying what is wrong and how to fix it." },
      },
      required: ["error", "detail"],
      additionalProperties: false,
    },
  };
  const paths: Record<string, Schema> = {};

  for (const dataset of datasets) {
    const envelopes = INTERVALS.map((interval) => {
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
    const limit = limits[dataset.scope];
    const extra = Object.entries(dataset.parameters ?? {}).map(([name, p]) => ({
      name,
      in: "query",
      required: false,
      description: `Must be ${p.expected}; default ${String(p.default)}.${name === "components" ? " Adds each record's components (1h only)." : ""}`,
      schema: { type: "string", enum: ["true", "false"], default: String(p.default) },
    }));
    paths[dataset.path] = {
      get: {
        operationId:
          dataset.id === "grid.system_state"
            ? "getGridSystemState"
            : `get${schemaName(dataset, "1h", "").replace(/Hourly$/, "")}`,
        summary: dataset.description,
        description: `Scope \`${dataset.scope}\`: ${limit} requests per key in any 60 seconds by default. A 304 counts like any allowed request.`,
        tags: ["datasets"],
        parameters: [
          ref("parameters", "start"),
          ref("parameters", "end"),
          ref("parameters", "interval"),
          ref("parameters", "format"),
          ref("parameters", "as_of"),
          ...extra,
        ],
        responses: {
          "200": {
            description:
              "The records of the range; JSON by default, CSV with format=csv or Accept: text/csv.",
            headers: headers(
              ...RATE,
              "ETag",
              "Last-Modified",
              "Cache-Control",
              "Vary",
              "Content-Disposition",
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
          },
          "304": ref("responses", "NotModified"),
          "400": ref("responses", "BadRequest"),
          "401": ref("responses", "Unauthorized"),
          "405": ref("responses", "MethodNotAllowed"),
          "429": ref("responses", "TooManyRequests"),
          "500": ref("responses", "InternalError"),
          "503": ref("responses", "DamagedData"),
        },
      },
    };
  }

  const field = (type: string, description: string, extra: Schema = {}) => ({ type, description, ...extra });
  schemas.Catalog = {
    type: "object",
    properties: {
      schema_version: { const: SCHEMA_VERSION },
      datasets: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: field("string", "`meta.dataset`."),
            path: field("string", "The endpoint."),
            description: field("string", "What it serves."),
            intervals: { type: "array", items: { enum: [...INTERVALS] } },
            derived: { type: "object", additionalProperties: { type: "boolean" } },
            scope: field("string", "The limiter scope."),
            limit: {
              type: "object",
              properties: { requests: { type: ["integer", "null"] }, window_seconds: { const: 60 } },
              required: ["requests", "window_seconds"],
            },
            parameters: { type: "array", items: { type: "string" } },
            formats: { type: "array", items: { enum: [...FORMATS] } },
            fields: {
              type: "object",
              description: "Per interval, the record fields in served order.",
              additionalProperties: { type: "array", items: ref("schemas", "FieldDescription") },
            },
          },
          required: [
            "id",
            "path",
            "description",
            "intervals",
            "derived",
            "scope",
            "limit",
            "parameters",
            "fields",
          ],
        },
      },
      coverage: {
        type: "object",
        properties: {
          first_hour: field("string", "The first stored hour.", { type: ["string", "null"] }),
          last_hour: field("string", "The last stored hour.", { type: ["string", "null"] }),
          last_available: field("string", "The newest actual hour.", { type: ["string", "null"] }),
        },
        required: ["first_hour", "last_hour", "last_available"],
      },
      last_ingest: { type: ["string", "null"], description: "When an ingest last changed the store." },
    },
    required: ["schema_version", "datasets", "coverage", "last_ingest"],
  };
  schemas.FieldDescription = {
    type: "object",
    properties: {
      name: { type: "string" },
      type: { enum: ["string", "number", "integer", "object"] },
      unit: { type: "string" },
      nullable: { type: "boolean" },
      optional: { type: "boolean" },
      description: { type: "string" },
      properties: { type: "array", items: ref("schemas", "FieldDescription") },
    },
    required: ["name", "type", "nullable", "description"],
  };
  schemas.Health = {
    type: "object",
    properties: {
      status: {
        enum: ["ok", "stale"],
        description: "stale: the newest actual hour is older than STALE_AFTER_H (still 200).",
      },
      last_available: { type: ["string", "null"], description: "The newest hour holding an actual reading." },
      data_age_seconds: { type: ["integer", "null"], description: "Seconds since that hour began." },
      stale: {
        type: "boolean",
        description:
          "True when the newest actual hour is more than 3 hours old (or there is none): alert on it.",
      },
      days_stored: { type: "integer", minimum: 0 },
      last_ingest: { type: ["string", "null"] },
      last_pull: {
        type: ["string", "null"],
        description: "When `pull` last found every portal file current or ingested.",
      },
      last_pull_age_seconds: { type: ["integer", "null"] },
    },
    required: [
      "status",
      "last_available",
      "data_age_seconds",
      "stale",
      "days_stored",
      "last_ingest",
      "last_pull",
      "last_pull_age_seconds",
    ],
    additionalProperties: false,
  };

  paths["/api/v1/datasets"] = {
    get: {
      operationId: "listDatasets",
      summary: "Every dataset with its fields, units, intervals and limits, and what the store holds.",
      description: `Scope \`metadata\`: ${limits.metadata} requests per key in any 60 seconds by default.`,
      tags: ["metadata"],
      responses: {
        "200": {
          description: "The catalog.",
          headers: headers(...RATE),
          content: { "application/json": { schema: ref("schemas", "Catalog") } },
        },
        "401": ref("responses", "Unauthorized"),
        "405": ref("responses", "MethodNotAllowed"),
        "429": ref("responses", "TooManyRequests"),
      },
    },
  };
  paths["/healthz"] = {
    get: {
      operationId: "health",
      summary: "Liveness and data freshness; no key needed.",
      security: [],
      tags: ["metadata"],
      responses: {
        "200": {
          description: "Up, with the age of the newest hour.",
          headers: headers("X-Request-Id"),
          content: { "application/json": { schema: ref("schemas", "Health") } },
        },
        "503": {
          description: "The store cannot be read.",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { status: { const: "unavailable" }, detail: { type: "string" } },
                required: ["status", "detail"],
              },
            },
          },
        },
      },
    },
  };
  paths["/api/v1/openapi.json"] = {
    get: {
      operationId: "openapi",
      summary: "This document; no key needed.",
      security: [],
      tags: ["metadata"],
      responses: {
        "200": {
          description: "The OpenAPI 3.1 document.",
          headers: headers("X-Request-Id", "ETag", "Cache-Control", "Vary"),
          content: { "application/json": { schema: { type: "object" } } },
        },
        "304": {
          description: "Your copy is current (If-None-Match).",
          headers: headers("X-Request-Id", "ETag", "Cache-Control", "Vary"),
        },
      },
    },
  };

  return {
    openapi: "3.1.0",
    info: {
      title: "Grid Data Service",
      version: "1.0.0",
      summary: "South Africa's power-grid data (Eskom Data Portal), hourly or daily, for a time range.",
      description:
        "Ranges are half-open, [start, end), in UTC. start and end are ISO-8601 date-times with an offset, or dates. " +
        `The longest span is ${MAX_SPAN_DAYS["1h"]} days at 1h and ${MAX_SPAN_DAYS["1d"]} days at 1d. ` +
        "Checks run in this order: unknown path (404), key (401), limit (429), method (405), query (400).",
    },
    security: [{ ApiKey: [] }],
    tags: [
      { name: "datasets", description: "Time series for a range." },
      { name: "metadata", description: "What exists, and whether the service is up." },
    ],
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: "apiKey",
          in: "header",
          name: "X-API-KEY",
          description:
            "A key from `npm run --silent keys -- create`. Limits are per key and scope over a rolling 60 s.",
        },
      },
      parameters: {
        start: {
          name: "start",
          in: "query",
          required: true,
          description:
            "Range start: an ISO-8601 date-time with an offset (Z, +hh:mm, +hhmm, +hh; seconds and fractions optional), or a date YYYY-MM-DD (00:00 UTC).",
          schema: { type: "string" },
          example: "2025-06-01T00:00:00Z",
        },
        end: {
          name: "end",
          in: "query",
          required: true,
          description: "Range end, excluded; same forms as start.",
          schema: { type: "string" },
          example: "2025-06-02T00:00:00Z",
        },
        interval: {
          name: "interval",
          in: "query",
          required: false,
          description: "1h: the hours beginning in the range. 1d: the UTC days whose 00:00 lies in it.",
          schema: { type: "string", enum: [...INTERVALS], default: "1h" },
        },
        format: {
          name: "format",
          in: "query",
          required: false,
          description: "json (the default) or csv; overrides Accept.",
          schema: { type: "string", enum: [...FORMATS] },
        },
        as_of: {
          name: "as_of",
          in: "query",
          required: false,
          description:
            "The values as the store held them at this instant, before any later revision (for backtests without look-ahead). Same forms as start; not in the future, not before the first recorded ingest.",
          schema: { type: "string" },
          example: "2025-06-02T12:00:00Z",
        },
      },
      headers: HEADERS,
      schemas,
      responses: {
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
      },
    },
  };
}
