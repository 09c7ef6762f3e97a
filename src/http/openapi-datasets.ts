/**
 * The dataset operations of the OpenAPI document, built from the dataset tables: each record's
 * fields, the envelope's `meta`, the query parameters (the same valibot schemas that validate
 * them), and the responses.
 */
import {
  type Aggregate,
  AGGREGATES,
  type DatasetDoc,
  type FieldDoc,
  type Interval,
  INTERVALS,
  type RangeSetting,
  servedFieldsOf,
  takes,
} from "../records/dataset.ts";
import { AS_OF_PARAMETER, FORMAT_PARAMETER } from "./dataset-handler.ts";
import * as v from "valibot";
import { RANGE_PARAMETERS } from "./range-query.ts";
import { jsonSchema, type QueryParameter, type Schema } from "./route-doc.ts";
import { headers, RATE, ref, scopeText } from "./openapi-components.ts";
import { HOURS_PARAMETER } from "./latest.ts";
import { OUTLOOK_TZ } from "./outlook-query.ts";
import { PARQUET_TYPE } from "./negotiation.ts";
import { answerExample, type DatasetExamples, EXAMPLE_RANGE, EXAMPLES } from "./openapi-examples.ts";
import { metaSchema } from "./openapi-meta.ts";

// The examples are real answers of this service, over its generated sample data.
const EXAMPLE_SUMMARY = `${EXAMPLE_RANGE.replace("&", " to ")}, hourly (first records): computed by this service from generated sample data, not Eskom's`;

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

function schemaName(dataset: DatasetDoc, interval: Interval, suffix: string): string {
  const base = dataset.id
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
  const grain = interval === "1h" ? "Hourly" : dataset.fields["1h"].length === 0 ? "" : "Daily";
  return `${base}${grain}${suffix}`;
}

/** The query parameters every dataset accepts, shared under `#/components/parameters`. */
export const SHARED_PARAMETERS: Readonly<Record<string, QueryParameter>> = {
  ...RANGE_PARAMETERS,
  format: FORMAT_PARAMETER,
  as_of: AS_OF_PARAMETER,
};

export function parameter(name: string, p: QueryParameter): Schema {
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

// A record's schema: every field it may carry. With `columns` only the stamp must be there.
function recordSchema(dataset: DatasetDoc, fields: readonly FieldDoc[], what: string): Schema {
  const schema: Schema = { type: "object", ...objectSchema(fields) };
  if (!takes(dataset, "columns")) return schema;
  schema.required = [fields[0]!.name];
  schema.description = `${what} Without columns, every field listed is present; with it, the stamp and the fields named.`;
  return schema;
}

// The fields of a period's records with `agg`, for any period and zone: the longest period's
// bounds, and a stamp that names no period.
function periodFields(dataset: DatasetDoc, agg: Aggregate): readonly FieldDoc[] {
  const [, ...fields] = servedFieldsOf(dataset, {
    interval: "1d",
    period: "1y",
    zone: "UTC",
    agg,
    options: {},
  });
  const date: FieldDoc = {
    name: "date",
    type: "string",
    format: "date",
    description:
      "The period's first day (interval: the UTC or, with tz, South African day, ISO week, month, year or financial year), YYYY-MM-DD.",
  };
  return [date, ...fields];
}

// The daily records' schemas, one per aggregate the dataset's fields allow; their refs.
function dailyRecordSchemas(dataset: DatasetDoc, schemas: Record<string, Schema>): Schema[] {
  const aggregates = takes(dataset, "agg") ? AGGREGATES : (["mean"] as const);
  return aggregates.flatMap((agg) => {
    const fields = takes(dataset, "agg") ? periodFields(dataset, agg) : dataset.fields["1d"];
    // Only the stamp and hours: no field of this dataset has that aggregate.
    if (agg !== "mean" && fields.length <= 2) return [];
    const name = schemaName(
      dataset,
      "1d",
      agg === "mean" ? "Record" : `${agg[0]!.toUpperCase()}${agg.slice(1)}Record`,
    );
    const what =
      agg === "mean"
        ? "A period's record with agg=mean (the default)."
        : `A period's record with agg=${agg}: each field's ${agg} over the period's hours.`;
    schemas[name] = recordSchema(dataset, fields, what);
    return [ref("schemas", name)];
  });
}

// The record and envelope schemas of a dataset at each interval; returns the envelopes' refs.
export function datasetSchemas(dataset: DatasetDoc, schemas: Record<string, Schema>): Schema[] {
  return INTERVALS.filter((interval) => dataset.fields[interval].length > 0).map((interval) => {
    const envelope = schemaName(dataset, interval, "Envelope");
    let items: Schema;
    if (interval === "1h") {
      const record = schemaName(dataset, interval, "Record");
      schemas[record] = recordSchema(dataset, dataset.fields[interval], "An hour's record.");
      items = ref("schemas", record);
    } else {
      const records = dailyRecordSchemas(dataset, schemas);
      items = records.length === 1 ? records[0]! : { anyOf: records };
    }
    schemas[envelope] = {
      type: "object",
      properties: {
        meta: metaSchema(dataset, interval),
        data: { type: "array", items, description: "Records in ascending time order." },
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

// The 200 of a dataset operation: JSON (with a real example), CSV and Parquet.
function okResponse(
  envelopes: Schema[],
  latest: boolean,
  example: { readonly json: unknown; readonly csv: string } | undefined,
) {
  return {
    description: latest
      ? "The newest hourly records, as a range ending after the newest one would give them."
      : "The records of the range; JSON by default, CSV with format=csv or Accept: text/csv, Parquet with format=parquet or Accept: application/vnd.apache.parquet.",
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
      "application/json": {
        schema: { oneOf: latest ? envelopes.slice(0, 1) : envelopes },
        ...(example === undefined
          ? {}
          : { examples: { hourly: { summary: EXAMPLE_SUMMARY, value: example.json } } }),
      },
      "text/csv": {
        schema: {
          type: "string",
          description: "A header row (ts or date first), one row per record, empty cells for nulls.",
        },
        ...(example === undefined ? {} : { example: example.csv }),
      },
      [PARQUET_TYPE]: {
        schema: {
          type: "string",
          format: "binary",
          description:
            "An Apache Parquet file: ts a UTC timestamp (or date a date), values float64 with nulls, the fields in order; meta as JSON under the key-value metadata key meta.",
        },
      },
    },
  };
}

// The interval parameter of a dataset that serves only some intervals: those, the first the default.
function ownIntervals(intervals: readonly string[]): QueryParameter {
  return {
    schema: v.picklist(intervals),
    expected: intervals.join(", "),
    default: intervals[0],
    description: `The intervals this dataset serves: ${intervals.join(", ")} (${intervals[0]} by default); any other is a 400.`,
  };
}

export function datasetOperation(
  dataset: DatasetDoc,
  limits: Readonly<Record<string, number>>,
  envelopes: Schema[],
  latest = false,
) {
  const own = Object.entries(dataset.parameters ?? {}).map(([name, p]) => parameter(name, p));
  const kept: DatasetExamples | undefined = latest ? undefined : EXAMPLES.datasets[dataset.path];
  const example = kept === undefined ? undefined : { json: answerExample(dataset.id, kept), csv: kept.csv };
  const ok = okResponse(envelopes, latest, example);
  const base = `get${schemaName(dataset, "1h", "").replace(/Hourly$/, "")}`;
  const shared = latest
    ? [parameter("hours", HOURS_PARAMETER), ...["tz", "columns", "format"].map((n) => ref("parameters", n))]
    : Object.keys(SHARED_PARAMETERS)
        .filter((name) => !["tz", "agg", "columns"].includes(name) || takes(dataset, name as RangeSetting))
        // An unranged dataset (the outlook) is asked without start and end, in SAST by default.
        .filter((name) => dataset.unranged !== true || !["start", "end"].includes(name))
        .map((name) =>
          name === "interval" && dataset.intervals !== undefined
            ? parameter(name, ownIntervals(dataset.intervals))
            : name === "tz" && dataset.unranged === true
              ? parameter(name, OUTLOOK_TZ)
              : ref("parameters", name),
        );
  return {
    operationId: latest ? `${base}Latest` : base,
    summary: latest ? `The newest hours of: ${dataset.description}` : dataset.description,
    description: [
      ...(dataset.reference === undefined || latest ? [] : [dataset.reference]),
      `${scopeText(dataset.scope, limits)} A 304 counts like any allowed request.`,
    ].join("\n\n"),
    tags: ["datasets"],
    parameters: [...shared, ...own],
    responses: {
      "200": ok,
      ...Object.fromEntries(
        Object.entries(DATASET_RESPONSES).map(([s, name]) => [s, ref("responses", name)]),
      ),
    },
  };
}

// The operation of a documented route; named body schemas go to `schemas`.
