/** `npm run field-tables`: regenerates the field tables of docs/api.md from the dataset tables. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withFieldTables } from "../src/datasets/field-tables.ts";
import { DATASETS } from "../src/service.ts";

const path = join(import.meta.dirname, "..", "docs", "api.md");
writeFileSync(path, withFieldTables(readFileSync(path, "utf8"), DATASETS));
process.stderr.write(`Rewrote the field tables of ${path}; run \`make format\` to align them.\n`);
