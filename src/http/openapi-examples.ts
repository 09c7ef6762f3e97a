/**
 * The examples of the OpenAPI document: real answers of this service, collected from a running
 * server over a generated sample store by `npm run openapi-examples` and kept in
 * `openapi-examples.json`, never typed by hand. `test/openapi-examples.test.ts` collects them
 * again from the current code and fails when they no longer match.
 */
import { readFileSync } from "node:fs";

/**
 * One dataset's examples: an hourly JSON answer (its first records; `meta.dataset` left out, as
 * the dataset's definition says it: `answerExample` puts it back) and the head of its CSV.
 */
export interface DatasetExamples {
  readonly json: { readonly meta: Readonly<Record<string, unknown>>; readonly data: readonly unknown[] };
  readonly csv: string;
}

/** Every example, by dataset path, and the shared errors'. */
export interface Examples {
  readonly datasets: Readonly<Record<string, DatasetExamples>>;
  readonly errors: { readonly "400": unknown; readonly "401": unknown; readonly "429": unknown };
}

/** The range the examples ask for, inside the sample the collector stores. */
export const EXAMPLE_RANGE = "start=2025-06-02T00:00:00Z&end=2025-06-02T03:00:00Z";

/** The sample the collector stores: its first day (SAST) and length. */
export const EXAMPLE_SAMPLE = { firstDay: "2025-06-01", days: 3 } as const;

/** What a collector fetches with: a path, and the key to send (none: no X-API-KEY header). */
export type Fetch = (path: string, key: string | undefined) => Promise<Response>;

/**
 * Collects the examples from a server over the example sample: `key` is unlimited, `limited`
 * allows one `normalized_data` request a minute (for the 429).
 */
export async function collectExamples(
  get: Fetch,
  paths: readonly string[],
  keys: { key: string; limited: string },
): Promise<Examples> {
  const datasets: Record<string, DatasetExamples> = {};
  for (const path of paths) {
    const body = (await (await get(`${path}?${EXAMPLE_RANGE}`, keys.key)).json()) as {
      meta: Record<string, unknown>;
      data: unknown[];
    };
    const csv = await (await get(`${path}?${EXAMPLE_RANGE}&format=csv`, keys.key)).text();
    const { dataset: _dataset, ...meta } = body.meta;
    datasets[path] = {
      json: { ...body, meta, data: body.data.slice(0, 2) },
      csv: csv.split("\r\n").slice(0, 3).join("\r\n") + "\r\n",
    };
  }
  const first = paths[0]!;
  const json = async (path: string, key: string | undefined): Promise<unknown> =>
    (await get(path, key)).json() as Promise<unknown>;
  const bad = await json(`${first}?start=2025-06-02`, keys.key);
  const unauthorized = await json(`${first}?${EXAMPLE_RANGE}`, undefined);
  await (await get(`${first}?${EXAMPLE_RANGE}`, keys.limited)).arrayBuffer();
  const throttled = await json(`${first}?${EXAMPLE_RANGE}`, keys.limited);
  return { datasets, errors: { "400": bad, "401": unauthorized, "429": throttled } };
}

/** A kept JSON example as the dataset `id` answered it: `meta.dataset` first, as served. */
export function answerExample(id: string, example: DatasetExamples): unknown {
  return { ...example.json, meta: { dataset: id, ...example.json.meta } };
}

/** The kept examples. */
export const EXAMPLES = JSON.parse(
  readFileSync(new URL("./openapi-examples.json", import.meta.url), "utf8"),
) as Examples;
