/**
 * The MCP tools (docs/mcp.md): what exists (`list_datasets`), a range of any dataset
 * (`query_dataset`), the newest hours (`latest`), and a tool of its own for each dataset whose
 * definition names one (`grid_stress`, `forecast`), its input the dataset's own parameters. Each
 * tool is one API request for the caller: the API validates it with its own rules and words,
 * counts it against the caller's limits, and a refusal is the tool's error with the API's status
 * and detail. Input schemas are the API's parameter tables as JSON Schema. Answers of more than
 * `MAX_RECORDS` records are a summary and the exact URL of the CSV and Parquet answers, never
 * thousands of records.
 */
import { type DatasetDefinition, isHourly } from "../datasets/registry.ts";
import type { DatasetParameter } from "../records/dataset.ts";
import { AS_OF_PARAMETER } from "../http/dataset-handler.ts";
import { RANGE_PARAMETERS } from "../http/range-query.ts";
import { OUTLOOK_TZ } from "../http/outlook-query.ts";
import { echo } from "../http/http-error.ts";
import { jsonSchema } from "../http/route-doc.ts";
import type { ApiAnswer, ApiCaller } from "./api-caller.ts";

/** The most records a tool answers in full. */
export const MAX_RECORDS = 200;

/** A tool's answer, as MCP's `tools/call` result carries it. */
export interface ToolResult {
  [key: string]: unknown;
  readonly content: { readonly type: "text"; readonly text: string }[];
  readonly isError?: boolean;
}

/** One tool. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: { readonly type: "object"; readonly [key: string]: unknown };
  run(args: Readonly<Record<string, unknown>>, api: ApiCaller): Promise<ToolResult>;
}

const ZONE_NOTE =
  "Every stamp carries its offset (+00:00 is UTC, +02:00 is SAST, South Africa's time all year). A bare date in start or end means 00:00 in tz: UTC unless tz=Africa/Johannesburg.";

const text = (value: string): ToolResult => ({ content: [{ type: "text", text: value }] });
const failure = (value: string): ToolResult => ({ content: [{ type: "text", text: value }], isError: true });

// A parameter's schema with its description, from the API's table.
function param(name: keyof typeof RANGE_PARAMETERS): Record<string, unknown> {
  const p = RANGE_PARAMETERS[name];
  return { ...jsonSchema(p.schema), description: p.description };
}

// A value as a query string writes it.
const plain = (value: unknown): string =>
  typeof value === "string"
    ? value
    : typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : JSON.stringify(value);

// The query string of the arguments the tool passes on (a list is comma-separated).
function queryOf(args: Readonly<Record<string, unknown>>, names: readonly string[]): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of names) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    query.set(name, Array.isArray(value) ? value.map(plain).join(",") : plain(value));
  }
  return query;
}

// The API's refusal as the tool's error: its status, its words, and when to try again.
function refusal(answer: ApiAnswer): ToolResult {
  const detail = (answer.body as { detail?: string } | null)?.detail ?? "no detail";
  const code = (answer.body as { error?: string } | null)?.error;
  const again = answer.retryAfter === null ? "" : ` Retry after ${answer.retryAfter} s.`;
  return failure(
    `The API answered ${answer.status}${code === undefined ? "" : ` ${code}`}: ${detail}${again}`,
  );
}

interface Envelope {
  readonly meta: Record<string, unknown>;
  readonly data: Record<string, unknown>[];
}

// Per numeric field: the least, the most, the mean and how many records lack it.
function fieldSummary(data: readonly Record<string, unknown>[]): Record<string, unknown> {
  const names = Object.keys(data[0] ?? {}).filter((n) => data.some((r) => typeof r[n] === "number"));
  return Object.fromEntries(
    names.map((name) => {
      const values = data.map((r) => r[name]).filter((v): v is number => typeof v === "number");
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      const round = (v: number) => Math.round(v * 1000) / 1000;
      return [
        name,
        {
          min: Math.min(...values),
          max: Math.max(...values),
          mean: round(mean),
          missing: data.length - values.length,
        },
      ];
    }),
  );
}

/** The records of an answer in full, or past `MAX_RECORDS` a summary and the URLs of the whole. */
async function records(
  api: ApiCaller,
  path: string,
  query: URLSearchParams,
  extra = "",
): Promise<ToolResult> {
  const answer = await api.get(path, query);
  if (answer.status !== 200) return refusal(answer);
  const { meta, data } = answer.body as Envelope;
  const head = `${ZONE_NOTE}${extra === "" ? "" : ` ${extra}`}`;
  if (data.length <= MAX_RECORDS) return text(`${head}\n${JSON.stringify({ meta, data })}`);
  const stamp = (r: Record<string, unknown> | undefined) => r?.ts ?? r?.date;
  const whole = (format: string) => api.url(path, new URLSearchParams([...query, ["format", format]]));
  const summary = {
    meta,
    records: data.length,
    first: stamp(data[0]),
    last: stamp(data.at(-1)),
    fields: fieldSummary(data),
    csv_url: whole("csv"),
    parquet_url: whole("parquet"),
  };
  return text(
    `${head}\n${data.length} records are more than ${MAX_RECORDS}: a summary follows. Fetch the whole with your key from csv_url or parquet_url (X-API-KEY header), or ask for a longer interval (1d, 1w, 1mo) or fewer columns.\n${JSON.stringify(summary)}`,
  );
}

const RANGE = { start: param("start"), end: param("end"), interval: param("interval"), tz: param("tz") };

// A range query's schema, with the tool's own properties.
const rangeSchema = (extra: Record<string, unknown>) =>
  ({
    type: "object",
    properties: { ...RANGE, ...extra },
    required: ["start", "end"],
    additionalProperties: false,
  }) as const;

const LIST_DATASETS: Tool = {
  name: "list_datasets",
  description:
    "What exists: every dataset with its id, path, intervals, fields with units, your limit per minute, and the hours the store holds. Call it first.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  run: async (_args, api) => {
    const answer = await api.get("/api/v1/datasets", new URLSearchParams());
    if (answer.status !== 200) return refusal(answer);
    return text(`${ZONE_NOTE}\n${JSON.stringify(answer.body)}`);
  },
};

// A dataset's own parameter as JSON Schema: a true-or-false one as a boolean.
function ownParameter(p: DatasetParameter): Record<string, unknown> {
  const schema = typeof p.default === "boolean" ? { type: "boolean" } : jsonSchema(p.schema);
  return {
    ...schema,
    ...(p.default === undefined ? {} : { default: p.default }),
    description: p.description,
  };
}

// The tool a dataset's definition names: a range of it (none for the outlook, whose hours are its
// issue's), with its own parameters and as_of.
function ownTool(dataset: DatasetDefinition, own: NonNullable<DatasetDefinition["tool"]>): Tool {
  const parameters = dataset.parameters ?? {};
  const intervals = dataset.intervals;
  const ranged = dataset.unranged !== true;
  const properties: Record<string, unknown> = {
    ...(ranged ? { start: RANGE.start, end: RANGE.end } : {}),
    interval:
      intervals === undefined
        ? RANGE.interval
        : { type: "string", enum: intervals, default: intervals[0], description: "The interval." },
    ...((dataset.takes ?? ["tz"]).includes("tz")
      ? { tz: ranged ? RANGE.tz : { ...RANGE.tz, description: OUTLOOK_TZ.description } }
      : {}),
    ...Object.fromEntries(Object.entries(parameters).map(([n, p]) => [n, ownParameter(p)])),
    as_of: { type: "string", description: AS_OF_PARAMETER.description },
  };
  return {
    name: own.name,
    description: own.description,
    inputSchema: {
      type: "object",
      properties,
      required: ranged ? ["start", "end"] : [],
      additionalProperties: false,
    },
    run: (args, api) => records(api, dataset.path, queryOf(args, Object.keys(properties)), own.note),
  };
}

// The tools that name a dataset: a range of it, and its newest hours.
function datasetTools(all: readonly DatasetDefinition[]): Tool[] {
  // The outlook is asked without a range, through its own tool.
  const datasets = all.filter((d) => d.unranged !== true);
  const ids = datasets.map((d) => d.id);
  const byId = (id: unknown) => datasets.find((d) => d.id === id);
  const unknown = (id: unknown) =>
    failure(`No dataset '${echo(String(id))}'. The datasets are: ${ids.join(", ")}.`);
  const query: Tool = {
    name: "query_dataset",
    description: `The records of a dataset in [start, end). Ask for what you need: a daily or monthly mean is interval 1d or 1mo (with agg min, max or sum), not thousands of hours; columns narrows the fields. Up to ${MAX_RECORDS} records are answered in full; more give a summary and the URL of the whole as CSV or Parquet. Ranges: 366 days at 1h, 7,320 at 1d and longer.`,
    inputSchema: rangeSchema({
      dataset: { type: "string", enum: ids, description: "The dataset's id (list_datasets)." },
      agg: param("agg"),
      columns: {
        type: "array",
        items: { type: "string" },
        description: RANGE_PARAMETERS.columns.description,
      },
      as_of: {
        type: "string",
        description: "The values as they were known at this instant (ISO 8601 with offset).",
      },
    }),
    run: async (args, api) => {
      const dataset = byId(args.dataset);
      if (dataset === undefined) return unknown(args.dataset);
      return records(
        api,
        dataset.path,
        queryOf(args, ["start", "end", "interval", "tz", "agg", "columns", "as_of"]),
      );
    },
  };
  const latest: Tool = {
    name: "latest",
    description: "The newest hourly records of a dataset, wherever they end (the portal runs days behind).",
    inputSchema: {
      type: "object",
      properties: {
        dataset: { type: "string", enum: datasets.filter(isHourly).map((d) => d.id) },
        hours: { type: "integer", minimum: 1, maximum: 8784, default: 24 },
        tz: param("tz"),
      },
      required: ["dataset"],
      additionalProperties: false,
    },
    run: async (args, api) => {
      const dataset = byId(args.dataset);
      if (dataset === undefined || !isHourly(dataset)) return unknown(args.dataset);
      return records(api, `${dataset.path}/latest`, queryOf({ hours: 24, ...args }, ["hours", "tz"]));
    },
  };
  return [query, latest];
}

/** The tools, over the service's `datasets`. */
export function mcpTools(datasets: readonly DatasetDefinition[]): Tool[] {
  const own = datasets.flatMap((d) => (d.tool === undefined ? [] : [ownTool(d, d.tool)]));
  return [LIST_DATASETS, ...datasetTools(datasets), ...own];
}
