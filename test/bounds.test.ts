/**
 * The physical bounds (src/source/bounds.ts): every column has them, docs/data.md shows them as the
 * code has them, and every real file in ../shared/data/eskom/ is within them except the scrambled
 * publication of 2023-04-24.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { allBounds } from "../src/source/bounds.ts";
import { boundsTable } from "../src/source/bounds-table.ts";
import { markedBoundsTable } from "./markdown-tables.ts";
import { columns } from "../src/source/columns.ts";
import { parsePortalCsv, PortalCsvError } from "../src/source/portal-csv.ts";
import { tableCells } from "./markdown-tables.ts";
import { REAL_DATA_DIR, skipUnless } from "./helpers.ts";

const SKIP = skipUnless(existsSync(REAL_DATA_DIR), `the real data is not at ${REAL_DATA_DIR}`);

test("every stored column has bounds, and nothing else does", () => {
  // A measured column has bounds; the mark of where an hour came from (`provenance`) is no measure.
  const measured = columns.filter((c) => c.kind !== "provenance").map((c) => c.name);
  assert.deepEqual([...allBounds().keys()].sort(), measured.sort());
  for (const [column, { min, max }] of allBounds()) assert.ok(min < max, column);
});

test("docs/data.md's bounds table is the code's", () => {
  const page = readFileSync(join(import.meta.dirname, "..", "docs", "data.md"), "utf8");
  assert.deepEqual(
    tableCells(markedBoundsTable(page) ?? ""),
    tableCells(boundsTable()),
    "docs/data.md's bounds are stale: run `npm run field-tables`",
  );
});

function csvFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return csvFiles(path);
    return name.endsWith(".csv") && name !== "MANIFEST.csv" && name !== "load_shedding_stages.csv"
      ? [path]
      : [];
  });
}

test(
  "every real file is within its bounds but the scrambled publication of 2023-04-24",
  { skip: SKIP },
  () => {
    const outside: string[] = [];
    let checked = 0;
    for (const path of csvFiles(REAL_DATA_DIR)) {
      const name = relative(REAL_DATA_DIR, path);
      const stamp = /(\d{4})_(\d\d)_(\d\d)T(\d\d)_(\d\d)/.exec(name);
      const receivedAt = stamp
        ? Date.UTC(+stamp[1]!, +stamp[2]! - 1, +stamp[3]!, +stamp[4]!, +stamp[5]!)
        : Date.now();
      try {
        parsePortalCsv(readFileSync(path, "utf8"), name, { receivedAt });
        checked++;
      } catch (error) {
        assert.ok(error instanceof PortalCsvError, String(error));
        if (/outside its bounds/.test(error.message)) outside.push(name);
        // Files whose columns this release does not store yet are not read at all.
        else checked += /unknown column|HTML page|cannot be read with certainty/.test(error.message) ? 0 : 1;
      }
    }
    assert.ok(checked >= 25, `${checked} files read`);
    assert.deepEqual(outside.sort(), [
      "portal_history/2023_04_24T12_00_01_838810/demand-side/System_hourly_actual_and_forecasted_demand.csv",
      "portal_history/2023_04_24T12_00_01_838810/renewables-performance/Hourly_Generation.csv",
      "portal_history/2023_04_24T12_00_01_838810/supply-side/Station_Build_Up.csv",
      "portal_history/2023_04_24T12_00_01_838810/supply-side/Station_Build_Up_Yesterday.csv",
    ]);
  },
);
