/**
 * The OpenAPI document's examples (src/http/openapi-examples.json) are what the service answers
 * now: collected again from a server over the same sample, they are equal. When an answer changes
 * on purpose, `npm run openapi-examples` writes them anew.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createKey } from "../src/keys/key-admin.ts";
import { collectExamples, EXAMPLE_SAMPLE, EXAMPLES } from "../src/http/openapi-examples.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { DATASETS, isHourly } from "../src/datasets/registry.ts";
const HOURLY_DATASETS = DATASETS.filter(isHourly);
import { ingestTexts, startServer, tempDir } from "./helpers.ts";

test("the document's examples are what the service answers today", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport(EXAMPLE_SAMPLE) });
  const server = await startServer(t, dir);
  const { key: limited } = createKey(dir, {
    name: "limited",
    account: "examples",
    limits: { normalized_data: 1 },
  });
  const get = (path: string, key: string | undefined) =>
    server.raw(path, { headers: key === undefined ? {} : { "X-API-KEY": key } });
  const fresh = await collectExamples(
    get,
    HOURLY_DATASETS.map((d) => d.path),
    { key: server.key, limited },
  );
  assert.deepEqual(fresh, EXAMPLES, "run npm run openapi-examples after changing an answer");
});

test("every dataset operation shows a JSON and a CSV example, and the 400, 401 and 429 examples", async (t) => {
  const server = await startServer(t, tempDir(t));
  const doc = (await (await server.raw("/api/v1/openapi.json")).json()) as {
    paths: Record<
      string,
      { get: { responses: Record<string, { content?: Record<string, Record<string, unknown>> }> } }
    >;
    components: { responses: Record<string, { content: Record<string, { example?: unknown }> }> };
  };
  for (const dataset of HOURLY_DATASETS) {
    const ok = doc.paths[dataset.path]!.get.responses["200"]!.content!;
    assert.ok(ok["application/json"]!.examples, `${dataset.path} has a JSON example`);
    assert.match(String(ok["text/csv"]!.example), /^(ts|date),/, `${dataset.path} has a CSV example`);
  }
  const responses = doc.components.responses;
  assert.equal(
    (responses.BadRequest!.content["application/json"]!.example as { error: string }).error,
    "missing_params",
  );
  assert.ok(responses.Unauthorized!.content["application/json"]!.example);
  assert.match(JSON.stringify(responses.TooManyRequests!.content["application/json"]!.example), /throttled/);
});
