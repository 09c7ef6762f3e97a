/**
 * What a route says about itself for the OpenAPI document: its operation, query parameters and
 * responses, with bodies and parameters as the same valibot schemas the code validates or builds
 * with. `openapi.ts` only assembles these; `jsonSchema` converts a valibot schema.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

export type Schema = Record<string, unknown>;

export type { QueryParameter } from "../records/dataset.ts";

/** One response: a shared one by name (`#/components/responses`), or its own. */
export type ResponseDoc =
  | string
  | {
      readonly description: string;
      /** Names of `#/components/headers`. */
      readonly headers?: readonly string[];
      /** A JSON body and the name its schema gets under `#/components/schemas`, if any. */
      readonly body?: v.GenericSchema;
      readonly bodyName?: string;
    };

/** An operation besides the datasets (catalog, health, this document); its path and scope are its route's. */
export interface RouteDoc {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly responses: Readonly<Record<string, ResponseDoc>>;
}

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses) of a valibot schema. Transformations are left
 * out: a query parameter is documented by the string it accepts.
 */
export function jsonSchema(schema: v.GenericSchema): Schema {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode: "input",
    errorMode: "ignore",
  }) as Schema;
  return rest;
}
