/** `src/datasets/field-tables.ts`: the field tables of docs/api.md are the dataset tables' fields. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { withFieldTables } from "../src/records/field-tables.ts";
import { fieldTableCells } from "./markdown-tables.ts";
import type { Dataset } from "../src/records/dataset.ts";
import { DATASETS as DOCUMENTED } from "../src/datasets/registry.ts";
import { DATASETS, isHourly } from "../src/datasets/registry.ts";
const HOURLY_DATASETS = DATASETS.filter(isHourly);

const PAGE = readFileSync(join(import.meta.dirname, "..", "docs", "api.md"), "utf8");

test("every dataset and interval has a field table in docs/api.md equal to its fields", () => {
  const inPage = fieldTableCells(PAGE);
  const generated = fieldTableCells(withFieldTables(PAGE, DOCUMENTED));
  assert.deepEqual(
    [...inPage.keys()].sort(),
    DOCUMENTED.flatMap((d) =>
      (["1h", "1d"] as const).filter((i) => d.fields[i].length > 0).map((i) => `${d.id} ${i}`),
    ).sort(),
    "one marked table per dataset and interval",
  );
  for (const [key, cells] of generated) {
    assert.deepEqual(
      inPage.get(key),
      cells,
      `docs/api.md's table ${key} is stale: run \`npm run field-tables\``,
    );
  }
});

test("a generated table lists nested fields by path and escapes pipes", () => {
  const cells = fieldTableCells(
    withFieldTables("<!-- fields: features.grid_stress_index 1h -->\n<!-- /fields -->", HOURLY_DATASETS),
  );
  const rows = cells.get("features.grid_stress_index 1h")!;
  assert.deepEqual(rows[0], ["field", "label", "unit", "meaning"]);
  assert.ok(
    rows.some(
      ([name, label, unit]) =>
        name === "`components.reserve_margin`" && label === "Spare capacity" && unit === "index",
    ),
  );
  const dataset: Dataset = HOURLY_DATASETS[0]!;
  const piped = {
    ...dataset,
    id: "x",
    fields: { ...dataset.fields, "1h": [{ name: "a", type: "number" as const, description: "a | b" }] },
  };
  assert.match(withFieldTables("<!-- fields: x 1h -->\n<!-- /fields -->", [piped]), /a \\\| b/);
});

test("a marker naming no dataset is refused", () => {
  assert.throws(
    () => withFieldTables("<!-- fields: nope 1h -->\n<!-- /fields -->", HOURLY_DATASETS),
    /names nope, which is no dataset/,
  );
});
