/**
 * The OpenAPI 3.1 document, assembled from the route table, so it cannot drift: each route that
 * carries its documentation, a dataset's table (`openapi-datasets.ts`) or a `RouteDoc` (its body
 * schemas are the valibot schemas of what it sends), at its path and under its scope. What no route owns (headers, shared error
 * responses, the key scheme) is in `openapi-components.ts`.
 */
import * as v from "valibot";
import type { Route } from "./router.ts";
import { MAX_STREAM_DAYS, MAX_SPAN_DAYS } from "./range-query.ts";
import { jsonSchema, type RouteDoc, type Schema } from "./route-doc.ts";
import {
  API_KEY,
  ERROR_SCHEMAS,
  HEADERS,
  headers,
  ref,
  scopeText,
  SHARED_RESPONSES,
} from "./openapi-components.ts";
import { datasetOperation, datasetSchemas, parameter, SHARED_PARAMETERS } from "./openapi-datasets.ts";
import { VERSION } from "../version.ts";

function routeOperation(
  route: RouteDoc,
  scope: string | null,
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
    ...(scope !== null ? { description: scopeText(scope, limits) } : {}),
    ...(scope === null ? { security: [] } : {}),
    tags: route.tags,
    responses: Object.fromEntries(responses) as Schema,
  };
}

const DOCUMENT_HEADERS = ["X-Request-Id", "ETag", "Cache-Control", "Vary"];

/** This document's own path. */
export const OPENAPI_PATH = "/api/v1/openapi.json";

/** This document's own operation. */
export const OPENAPI_OPERATION: RouteDoc = {
  operationId: "openapi",
  summary: "This document; no key needed.",
  tags: ["metadata"],
  responses: {
    "200": {
      description: "The OpenAPI 3.1 document.",
      headers: DOCUMENT_HEADERS,
      body: v.record(v.string(), v.unknown()),
    },
    "304": { description: "Your copy is current (If-None-Match).", headers: DOCUMENT_HEADERS },
    "405": "MethodNotAllowed",
  },
};

const INFO = {
  title: "Grid Data Service",
  // The release (package.json): the reference describes what this running service answers.
  version: VERSION,
  summary:
    "South Africa's power-grid data (Eskom Data Portal), hourly or over days, weeks, months and years, for a time range.",
  description:
    "Ranges are half-open, [start, end). start and end are ISO-8601 date-times with an offset, or dates (00:00 in tz: UTC unless tz=Africa/Johannesburg). " +
    `The longest span is ${MAX_SPAN_DAYS["1h"]} days at 1h in JSON, ${MAX_STREAM_DAYS} days at 1h in CSV and Parquet (streamed), and ${MAX_SPAN_DAYS["1d"]} days at 1d and longer intervals. ` +
    "Checks run in this order: unknown path (404), key (401), limit (429), method (405), query (400).",
};

/** The document of the routes that carry one (in the table's order), with the default limits per scope. */
export function buildOpenApi(routes: readonly Route[], limits: Readonly<Record<string, number>>): Schema {
  const schemas: Record<string, Schema> = { ...ERROR_SCHEMAS };
  const paths: Record<string, Schema> = {};
  for (const { path, scope, doc } of routes) {
    if (doc === undefined) continue;
    paths[path] = {
      get:
        "dataset" in doc
          ? datasetOperation(doc.dataset, limits, datasetSchemas(doc.dataset, schemas), doc.latest)
          : routeOperation(doc.operation, scope, limits, schemas),
    };
  }
  return {
    openapi: "3.1.0",
    info: INFO,
    // Relative to this document (/api/v1/openapi.json), so it holds behind a proxy that mounts the
    // service under a path of its own.
    servers: [{ url: "../..", description: "This service" }],
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
