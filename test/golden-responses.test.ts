/**
 * Byte-for-byte guard for refactors: the SHA-256 of the status, ETag, content type and body of a
 * fixed set of queries, over generated sample data and (when present) the real Eskom files, is
 * compared with `test/golden/responses.json`. A refactor that must not change behaviour leaves
 * every hash in place; a change that is meant to alter a response regenerates the file with
 * `UPDATE_GOLDEN=1 node --import tsx --test test/golden-responses.test.ts` and says why in its commit.
 * Only hashes are kept: no response built from the real files is stored in the repository.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import {
  ingestLiveSnapshot,
  REAL_DATA_DIR,
  REAL_DATA_SKIP,
  startServer,
  tempDir,
  writeFile,
} from "./helpers.ts";

const GOLDEN = join(import.meta.dirname, "golden", "responses.json");
const UPDATE = process.env.UPDATE_GOLDEN === "1";

const DATASETS = ["/api/v1/grid/system-state", "/api/v1/generation/mix", "/api/v1/features/grid-stress"];

// Every dataset at both intervals, in JSON and CSV, over ranges that start mid-day, cross the
// stored data's edges and include whole days; grid stress with and without its components, in
// both versions.
function queries(ranges: readonly string[]): string[] {
  const out: string[] = [];
  for (const path of DATASETS) {
    for (const range of ranges) {
      for (const interval of ["1h", "1d"]) {
        out.push(`${path}?${range}&interval=${interval}`);
        out.push(`${path}?${range}&interval=${interval}&format=csv`);
      }
    }
  }
  for (const range of ranges) {
    out.push(`/api/v1/features/grid-stress?${range}&components=true`);
    out.push(`/api/v1/features/grid-stress?${range}&components=true&version=v1`);
  }
  return out;
}

async function hashes(url: (path: string) => Promise<Response>, paths: readonly string[]) {
  const out: Record<string, string> = {};
  for (const path of paths) {
    const res = await url(path);
    let body = Buffer.from(await res.arrayBuffer());
    let etag = res.headers.get("etag");
    if (path === "/api/v1/datasets") {
      // The catalog names the time of the ingest this test just ran: leave that out.
      const { last_ingest: _lastIngest, ...rest } = JSON.parse(body.toString()) as Record<string, unknown>;
      body = Buffer.from(JSON.stringify(rest));
      etag = null;
    }
    const head = `${res.status}\n${etag}\n${res.headers.get("content-type")}\n`;
    out[path] = createHash("sha256").update(head).update(body).digest("hex");
  }
  return out;
}

function compare(name: string, actual: Record<string, string>): void {
  const golden = existsSync(GOLDEN)
    ? (JSON.parse(readFileSync(GOLDEN, "utf8")) as Record<string, unknown>)
    : {};
  if (UPDATE) {
    writeFileSync(GOLDEN, JSON.stringify({ ...golden, [name]: actual }, null, 2) + "\n");
    return;
  }
  const expected = golden[name] as Record<string, string> | undefined;
  assert.ok(expected, `no golden hashes for ${name}: run with UPDATE_GOLDEN=1 once`);
  const changed = Object.keys(expected).filter((path) => actual[path] !== expected[path]);
  assert.deepEqual(changed, [], "these responses changed");
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
}

test("responses over generated sample data are byte-identical to the golden set", async (t) => {
  const dir = tempDir(t);
  const csv = writeFile(dir, "sample.csv", generateSampleExport({ firstDay: "2025-01-01", days: 70 }));
  assert.deepEqual(ingestFiles([csv], { dir }).failures, []);
  const server = await startServer(t, dir);
  const paths = [
    ...queries([
      "start=2025-01-01&end=2025-01-03",
      "start=2025-01-30T05:00:00Z&end=2025-03-02T17:00:00Z",
      "start=2024-12-20&end=2025-03-20",
    ]),
    "/api/v1/datasets",
  ];
  compare("sample", await hashes((path) => server.get(path), paths));
});

test(
  "responses over the real 2018 export and 2023 live files are byte-identical to the golden set",
  { skip: REAL_DATA_SKIP },
  async (t) => {
    const exportDir = tempDir(t);
    assert.deepEqual(
      ingestFiles([join(REAL_DATA_DIR, "eskom_data_v1-1.csv")], { dir: exportDir }).failures,
      [],
    );
    const exported = await startServer(t, exportDir);
    compare(
      "export_2018",
      await hashes(
        (path) => exported.get(path),
        queries([
          "start=2018-04-01&end=2018-04-03",
          "start=2018-05-28T13:00:00Z&end=2018-07-02T09:00:00Z",
          "start=2018-03-01&end=2018-09-01",
        ]),
      ),
    );

    const liveDir = tempDir(t);
    ingestLiveSnapshot(liveDir);
    const served = await startServer(t, liveDir);
    compare(
      "live_2023",
      await hashes(
        (path) => served.get(path),
        queries(["start=2023-02-13&end=2023-02-23", "start=2023-02-15T07:00:00Z&end=2023-02-20"]),
      ),
    );
  },
);
