/** `src/env-settings.ts`: settings from the environment, with errors naming the variable. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import { parseEnv, PositiveInteger } from "../src/env-settings.ts";

const Schema = v.object({
  PORT: v.optional(PositiveInteger, "8000"),
  HOST: v.optional(v.string(), "127.0.0.1"),
});

test("values are validated and converted; unset and empty variables take the default", () => {
  assert.deepEqual(parseEnv(Schema, { PORT: "9000" }), { PORT: 9000, HOST: "127.0.0.1" });
  assert.deepEqual(parseEnv(Schema, { PORT: "", HOST: "0.0.0.0", OTHER: "x" }), {
    PORT: 8000,
    HOST: "0.0.0.0",
  });
});

test("a bad value names the variable, the value and the rule", () => {
  assert.throws(
    () => parseEnv(Schema, { PORT: "eighty" }),
    /^TypeError: Invalid PORT: "eighty" must be a whole number$/,
  );
  assert.throws(() => parseEnv(Schema, { PORT: "0" }), /Invalid PORT: "0" must be at least 1/);
  assert.throws(() => parseEnv(v.object({ N: v.number() }), { N: "1" }), /Invalid N: "1"/);
});
