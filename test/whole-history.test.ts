/**
 * Issue 40's check of a whole history: a 10-year hourly Parquet download from a 10-year store is
 * read by DuckDB (a reader this project does not write) with the right types and row count, and
 * its values equal the JSON answers for the same hours, asked 366 days at a time.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { DAY_MS } from "../src/time.ts";
import { TEN_YEARS, tenYearStore } from "./fixture-stores.ts";
import { startServer, tempDir } from "./helpers.ts";

const FIRST = Date.parse(`${TEN_YEARS.firstDay}T00:00:00Z`);
const DAYS = TEN_YEARS.days;

test("10 years hourly as Parquet: DuckDB reads its types and rows, and its values are the JSON answers'", async (t) => {
  // The run's ten-year store, built once and only read.
  const server = await startServer(t, tempDir(t), { storeDir: await tenYearStore() });
  const end = FIRST + DAYS * DAY_MS;
  const iso = (ms: number) => new Date(ms).toISOString();
  const res = await server.get(`/api/v1/generation/mix?start=${iso(FIRST)}&end=${iso(end)}&format=parquet`);
  assert.equal(res.status, 200);
  const file = join(tempDir(t), "ten-years.parquet");
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));

  const json: Record<string, unknown>[] = [];
  for (let from = FIRST; from < end; from += 366 * DAY_MS) {
    const to = Math.min(end, from + 366 * DAY_MS);
    const page = await server.get(`/api/v1/generation/mix?start=${iso(from)}&end=${iso(to)}`);
    json.push(...((await page.json()) as { data: Record<string, unknown>[] }).data);
  }
  // The export's first SAST hours lie before 2016-01-01 UTC: every stored hour from then on.
  assert.ok(json.length >= DAYS * 24 - 2, `${json.length} hours`);

  const db = await (await DuckDBInstance.create(":memory:")).connect();
  const columns = (await db.runAndReadAll(`DESCRIBE SELECT * FROM '${file}'`)).getRowObjectsJson();
  assert.deepEqual(
    columns.map((c) => [c.column_name, c.column_type]),
    Object.keys(json[0]!).map((name) => [name, name === "ts" ? "TIMESTAMP WITH TIME ZONE" : "DOUBLE"]),
  );
  const rows = (
    await db.runAndReadAll(`SELECT epoch_ms(ts) AS ms, * EXCLUDE (ts) FROM '${file}' ORDER BY ts`)
  ).getRowObjectsJson();
  assert.equal(rows.length, json.length);
  for (let i = 0; i < rows.length; i++) {
    const { ms, ...values } = rows[i]!;
    const { ts, ...want } = json[i]!;
    assert.equal(Number(ms), Date.parse(ts as string), `row ${i}`);
    assert.deepEqual(values, want, String(ts));
  }
});
