/**
 * `npm run field-tables`: regenerates the tables the docs take from the code: the field tables of
 * docs/api.md (from the dataset tables), its grid-stress formulas and evaluation (from
 * `features/stress-reference.ts`) and the bounds table of docs/data.md (from bounds.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withFieldTables } from "../src/records/field-tables.ts";
import { withBoundsTable } from "../src/source/bounds-table.ts";
import { withStressTables } from "../src/features/stress-reference.ts";
import { DATASETS } from "../src/datasets/registry.ts";

const docs = join(import.meta.dirname, "..", "docs");
const api = join(docs, "api.md");
writeFileSync(api, withStressTables(withFieldTables(readFileSync(api, "utf8"), DATASETS)));
const data = join(docs, "data.md");
writeFileSync(data, withBoundsTable(readFileSync(data, "utf8")));
process.stderr.write(`Rewrote the field tables of ${api} and the bounds of ${data}.\n`);
