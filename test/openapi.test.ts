/**
 * The OpenAPI document passes a maintained validator, and every real response of every endpoint,
 * success and error, matches the schema and headers it documents.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, startServer, tempDir } from "./helpers.ts";
import { DATASETS, isHourly } from "../src/datasets/registry.ts";
const HOURLY_DATASETS = DATASETS.filter(isHourly);

type Doc = Record<string, any>;

async function served(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-05-01", days: 45 }) });
  const server = await startServer(t, dir, {
    limits: { normalized_data: 1_000, features: 1_000, metadata: 1_000 },
  });
  const res = await server.raw("/api/v1/openapi.json");
  assert.equal(res.status, 200);
  return { dir, server, doc: (await res.json()) as Doc };
}

test("the OpenAPI document is valid OpenAPI 3.1, served without a key", async (t) => {
  const { doc } = await served(t);
  assert.equal(doc.openapi, "3.1.0");
  const result = await new Validator().validate(doc);
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
  assert.equal(doc.components.securitySchemes.ApiKey.name, "X-API-KEY");
  for (const path of [
    "/api/v1/grid/system-state",
    "/api/v1/generation/mix",
    "/api/v1/features/grid-stress",
  ]) {
    assert.ok(doc.paths[path].get.responses["429"], path);
  }
  assert.equal(doc.paths["/api/v1/grid/system-state"].get.operationId, "getGridSystemState");
  const unit = doc.components.schemas.GridSystemStateHourlyRecord.properties.residual_demand_mw;
  assert.deepEqual(unit.type, ["number", "null"]);
  assert.equal(unit["x-unit"], "MW");
  // A period's records: each aggregate's own schema, bounds for a year, only the stamp required.
  const daily = doc.components.schemas.FeaturesGridStressIndexDailyRecord;
  assert.deepEqual(daily.required, ["date"]);
  assert.equal(daily.properties.hours.maximum, 8784);
  assert.equal(daily.properties.hours_low.maximum, 8784);
  assert.match(daily.properties.hours_low.description, /of the period/);
  const items = doc.components.schemas.GridSystemStateDailyEnvelope.properties.data.items;
  assert.deepEqual(
    items.anyOf.map((r: Doc) => r.$ref.split("/").at(-1)),
    ["Record", "MinRecord", "MaxRecord", "SumRecord"].map((s) => `GridSystemStateDaily${s}`),
  );
  assert.ok(doc.components.schemas.GridSystemStateDailySumRecord.properties.sum_residual_demand_mw);
});

const escape = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

function checker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  ajv.addFormat("date", /^\d{4}-\d{2}-\d{2}$/);
  ajv.addSchema(doc, "openapi.json", undefined, false);

  return async function check(path: string, res: Response, documented = path) {
    const operation = doc.paths[documented]?.get;
    let pointer: string;
    let response: Doc | undefined;
    if (res.status === 404) {
      // An unknown path is no operation: its body is the documented `Detail`, with a request id.
      pointer = "";
      response = {
        headers: { "X-Request-Id": {} },
        content: { "application/json": { schema: { $ref: "#/components/schemas/Detail" } } },
      };
    } else {
      assert.ok(operation, `${documented} is documented`);
      response = operation.responses[String(res.status)];
      assert.ok(response, `${documented} documents status ${res.status}`);
      pointer = `#/paths/${escape(documented)}/get/responses/${res.status}`;
      if (response.$ref) {
        pointer = response.$ref;
        response = doc.components.responses[response.$ref.split("/").at(-1)];
      }
    }
    const contentType = (res.headers.get("content-type") ?? "").split(";")[0]!;
    for (const name of Object.keys(response!.headers ?? {})) {
      if (name === "Content-Disposition" && contentType !== "text/csv") continue;
      assert.ok(res.headers.has(name), `${path} ${res.status} carries ${name}`);
    }
    const text = await res.text();
    if (res.status === 304) return assert.equal(text, "");
    assert.ok(response!.content?.[contentType], `${path} ${res.status} documents ${contentType}`);
    if (contentType !== "application/json") return;
    const schema =
      pointer === ""
        ? "openapi.json#/components/schemas/Detail"
        : `openapi.json${pointer}/content/${escape(contentType)}/schema`;
    const validate = ajv.compile({ $ref: schema });
    const body = JSON.parse(text);
    assert.ok(validate(body), `${path} ${res.status}: ${JSON.stringify(validate.errors, null, 1)}`);
  };
}

test("every real response matches its documented schema and headers", async (t) => {
  const { dir, server, doc } = await served(t);
  const check = checker(doc);
  const datasets = HOURLY_DATASETS.map((d) => d.path);
  const range = "start=2025-05-31T20:00:00Z&end=2025-06-02T02:00:00Z";
  const months = "start=2025-05-01&end=2025-06-15";
  for (const path of datasets) {
    for (const query of [
      range,
      `${range}&interval=1d`,
      `${range}&format=csv`,
      `${range}&interval=1d&format=csv`,
      // Every period, aggregate and zone, and columns: records the default schema does not describe.
      `${months}&interval=1w`,
      `${months}&interval=1mo&agg=sum`,
      `${months}&interval=1y&agg=max&tz=Africa/Johannesburg`,
      `${months}&interval=fy&agg=min`,
      `${months}&interval=1d&agg=min`,
      `${range}&columns=ts`,
      `${months}&interval=1mo&columns=date`,
    ]) {
      await check(`${path}?${query}`, await server.get(`${path}?${query}`), path);
    }
    await check(`${path}/latest`, await server.get(`${path}/latest?hours=3`));
    await check(path, await server.get(`${path}?${range}`, { headers: { Accept: "text/csv" } }));
    await check(path, await server.get(`${path}?start=2030-01-01&end=2030-01-02`));
    const first = await server.get(`${path}?${range}`);
    await check(
      path,
      await server.get(`${path}?${range}`, { headers: { "If-None-Match": first.headers.get("etag")! } }),
    );
    for (const bad of [
      "",
      "start=x&end=y",
      `${range}&interval=5m`,
      `${range}&bogus=1`,
      "start=2025-01-01&end=2027-01-01",
    ]) {
      await check(path, await server.get(`${path}?${bad}`));
    }
    await check(path, await server.raw(`${path}?${range}`));
    await check(path, await server.raw(`${path}?${range}`, { headers: { "X-API-KEY": "gds_wrong" } }));
    await check(path, await server.get(`${path}?${range}`, { method: "POST" }));
  }
  await check(datasets[2]!, await server.get(`${datasets[2]}?${range}&components=true`));
  await check(datasets[2]!, await server.get(`${datasets[2]}?${range}&components=maybe`));

  await check("/api/v1/datasets", await server.get("/api/v1/datasets"));
  await check("/api/v1/datasets", await server.raw("/api/v1/datasets"));
  await check("/healthz", await server.raw("/healthz"));
  const openapi = await server.raw("/api/v1/openapi.json");
  await check("/api/v1/openapi.json", openapi);
  await check(
    "/api/v1/openapi.json",
    await server.raw("/api/v1/openapi.json", { headers: { "If-None-Match": openapi.headers.get("etag")! } }),
  );
  await check("/nowhere", await server.raw("/nowhere"));

  // A damaged day file is a documented 503, never data.
  rmSync(join(dir, "readings", "2025-06.pack"));
  writeFileSync(join(dir, "readings", "2025-06-10.jsonl"), "not json\n");
  const restarted = await startServer(t, dir); // nothing of the broken day in its memory
  const broken = await restarted.get(`${datasets[0]}?start=2025-06-10T05:00:00Z&end=2025-06-10T06:00:00Z`);
  assert.equal(broken.status, 503);
  await check(datasets[0]!, broken);
  // /healthz now reports the damaged day: its 503 body is documented too.
  const degraded = await restarted.raw("/healthz");
  assert.equal(degraded.status, 503);
  await check("/healthz", degraded);
});

test("throttled responses match the 429 schema with Retry-After", async (t) => {
  const dir = tempDir(t);
  const server = await startServer(t, dir, { limits: { normalized_data: 1, features: 1, metadata: 1 } });
  const doc = (await (await server.raw("/api/v1/openapi.json")).json()) as Doc;
  const check = checker(doc);
  const { createKey } = await import("../src/keys/key-admin.ts");
  const { key } = createKey(dir, { name: "limited", account: "a" });
  for (const path of ["/api/v1/grid/system-state", "/api/v1/features/grid-stress", "/api/v1/datasets"]) {
    const url = path === "/api/v1/datasets" ? path : `${path}?start=2025-06-01&end=2025-06-02`;
    await (await server.raw(url, { headers: { "X-API-KEY": key } })).arrayBuffer();
    const res = await server.raw(url, { headers: { "X-API-KEY": key } });
    assert.equal(res.status, 429);
    await check(path, res);
  }
});

test("the document's info.version is the running release's (package.json), as /healthz says it", async (t) => {
  const { doc } = await served(t);
  const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
    version: string;
  };
  assert.equal(doc.info.version, version);
});
