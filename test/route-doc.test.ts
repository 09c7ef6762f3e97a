/** `src/http/route-doc.ts`: valibot schemas as the JSON Schemas the OpenAPI document carries. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import { jsonSchema } from "../src/http/route-doc.ts";
import { HealthBody } from "../src/http/health-handler.ts";
import { RANGE_PARAMETERS } from "../src/http/range-query.ts";

test("a query parameter is documented by the string it accepts, its transformation left out", () => {
  const flag = v.pipe(
    v.picklist(["true", "false"]),
    v.transform((s) => s === "true"),
  );
  assert.deepEqual(jsonSchema(flag), { enum: ["true", "false"], type: "string" });
  assert.deepEqual(jsonSchema(RANGE_PARAMETERS.start.schema), { type: "string" });
  assert.deepEqual(jsonSchema(RANGE_PARAMETERS.interval.schema), {
    enum: ["1h", "1d", "1w", "1mo", "1y", "fy"],
    type: "string",
  });
});

test("a body schema keeps its descriptions, nullability, bounds and closed shape, without a dialect line", () => {
  const schema = jsonSchema(HealthBody) as {
    properties: Record<string, Record<string, unknown>>;
    required: string[];
    additionalProperties: boolean;
    $schema?: string;
  };
  assert.equal(schema.$schema, undefined);
  assert.equal(schema.additionalProperties, false);
  assert.ok(schema.required.includes("status") && !schema.required.includes("redis"), "redis is optional");
  assert.match(String(schema.properties.status!.description), /stale/);
  assert.deepEqual(schema.properties.days_stored, { type: "integer", minimum: 0 });
  assert.deepEqual(schema.properties.last_ingest, { anyOf: [{ type: "string" }, { type: "null" }] });
});
