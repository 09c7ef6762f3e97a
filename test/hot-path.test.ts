/**
 * The request path makes no function per request that tsx would name. tsx runs esbuild with
 * keepNames: a function written as a named value (`const f = () => ...`, `{ meta: () => ... }`)
 * is given its name by an `Object.defineProperty` call each time it is created, about 4k
 * instructions, a thirtieth of a cached answer (docs/development.md, "Conventions"). The server
 * runs as `make serve` runs it, with a preload that counts those calls.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { ingestTexts, startServerProcess, tempDir } from "./helpers.ts";

const PRELOAD = join(import.meta.dirname, "fixtures", "count-function-names.mjs");

test("answers from the caches (200 kept, compressed, 304, 429) name no function", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "a.csv": generateSampleExport({ firstDay: "2025-01-01", days: 40 }) });
  const { key } = createKey(dir, { name: "hot", account: "tests", limits: { normalized_data: 1_000_000 } });
  const { key: small } = createKey(dir, { name: "small", account: "tests", limits: { normalized_data: 1 } });
  const server = await startServerProcess(t, dir, { env: { NODE_OPTIONS: `--import ${PRELOAD}` } });
  const url = `http://127.0.0.1:${server.port}/api/v1/grid/system-state?start=2025-01-02T00:00:00Z&end=2025-02-01T00:00:00Z`;
  const first = await fetch(url, { headers: { "X-API-KEY": key } });
  const etag = first.headers.get("etag")!;
  await first.arrayBuffer();
  await (await fetch(url, { headers: { "X-API-KEY": small } })).arrayBuffer(); // its one request a minute
  const kinds: [string, Record<string, string>, number][] = [
    ["kept", { "X-API-KEY": key, "Accept-Encoding": "identity" }, 200],
    ["compressed", { "X-API-KEY": key, "Accept-Encoding": "gzip" }, 200],
    ["not modified", { "X-API-KEY": key, "Accept-Encoding": "identity", "If-None-Match": etag }, 304],
    ["throttled", { "X-API-KEY": small }, 429],
  ];
  const round = async () => {
    let throttled = 0;
    for (let i = 0; i < 50; i++) {
      for (const [kind, headers, status] of kinds) {
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        if (status === 429 && res.status === 429) throttled++;
        // On a machine slow enough for the minute to pass, the small key gets its next request.
        else if (status === 429) assert.equal(res.status, 200, kind);
        else assert.equal(res.status, status, kind);
      }
    }
    assert.ok(throttled >= 40, `${throttled} of 50 answers to the small key were 429`);
  };
  let seen = 0;
  const named = async (): Promise<number> => {
    const before = seen;
    server.child.kill("SIGUSR2");
    for (let i = 0; i < 500 && (seen = server.stderr().split("functions named:").length - 1) === before; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const m = [...server.stderr().matchAll(/functions named: (\d+)/g)].at(-1);
    assert.ok(m !== undefined && seen > before, "the preload answered");
    return Number(m[1]);
  };
  await round(); // the first answers may name what they make once
  const before = await named();
  await round();
  const after = await named();
  assert.equal(after - before, 0, `${after - before} functions named in 200 answers from the caches`);
});
