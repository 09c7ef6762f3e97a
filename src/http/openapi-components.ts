/**
 * The parts of the OpenAPI document that no route owns: the response headers, the shared error
 * responses and their schemas, and the key scheme.
 */
import * as v from "valibot";
import { BAD_REQUEST_CODES } from "./http-error.ts";
import { jsonSchema, type Schema } from "./route-doc.ts";
import { EXAMPLES } from "./openapi-examples.ts";

/** A reference to a component of the document. */
export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The scope line of an operation's description. */
export const scopeText = (scope: string, limits: Readonly<Record<string, number>>) =>
  `Scope \`${scope}\`: ${limits[scope]} requests per key in any 60 seconds by default.`;

/** Every response header the document names, under `#/components/headers`. */
export const HEADERS: Record<string, Schema> = {
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
    description:
      'For CSV and Parquet: `attachment; filename="<dataset>_<interval>_<start>_<end>.csv"` (or `.parquet`).',
    schema: { type: "string" },
  },
  "WWW-Authenticate": { description: "`X-API-KEY`: the key scheme.", schema: { type: "string" } },
  Allow: { description: "The methods the path answers: `GET, HEAD`.", schema: { type: "string" } },
};

export /** References to the named headers. */
const headers = (...names: string[]) => Object.fromEntries(names.map((n) => [n, ref("headers", n)]));

export const RATE = ["X-Request-Id", "RateLimit", "RateLimit-Policy"];

function detailResponse(description: string, example: string, extraHeaders: string[] = []): Schema {
  return {
    description,
    headers: headers("X-Request-Id", ...extraHeaders),
    content: { "application/json": { schema: ref("schemas", "Detail"), example: { detail: example } } },
  };
}

/** The responses every operation may give, under `#/components/responses`. */
export const SHARED_RESPONSES: Record<string, Schema> = {
  NotModified: {
    description: "Your copy is current (If-None-Match, or If-Modified-Since without it).",
    headers: headers("X-Request-Id", "ETag", "Last-Modified", "Cache-Control", "Vary"),
  },
  BadRequest: {
    description: "The query is invalid.",
    headers: headers(...RATE),
    content: {
      "application/json": { schema: ref("schemas", "BadRequest"), example: EXAMPLES.errors["400"] },
    },
  },
  Unauthorized: detailResponse(
    "No key (`Authentication credentials were not provided.`), or an unknown or revoked one (`Invalid API key.`). Never counted.",
    (EXAMPLES.errors["401"] as { detail: string }).detail,
    ["WWW-Authenticate"],
  ),
  MethodNotAllowed: detailResponse("A method other than GET or HEAD.", 'Method "POST" not allowed.', [
    "Allow",
    ...RATE.slice(1),
  ]),
  TooManyRequests: detailResponse(
    "Over the key's limit in this scope. Not counted.",
    (EXAMPLES.errors["429"] as { detail: string }).detail,
    ["Retry-After", ...RATE.slice(1)],
  ),
  InternalError: detailResponse("A bug; the cause is logged, never sent.", "Internal server error."),
  DamagedData: detailResponse(
    "A stored day the range needs does not match the store's record of it (a damaged file): it is never served as data until re-ingested.",
    "The stored data for 2025-06-10 is damaged and is not served until it is repaired; the operator has been alerted. Try again later.",
    ["Retry-After"],
  ),
};

export const ERROR_SCHEMAS: Record<string, Schema> = {
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

/** The key scheme. */
export const API_KEY = {
  type: "apiKey",
  in: "header",
  name: "X-API-KEY",
  description:
    "A key from `npm run --silent keys -- create`. Limits are per key and scope over a rolling 60 s.",
};
