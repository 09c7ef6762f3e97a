/**
 * `npm run openapi-examples`: collects the OpenAPI document's examples from a real server over a
 * generated sample store and writes src/http/openapi-examples.json (see openapi-examples.ts).
 * Run it after a change that alters an answer; test/openapi-examples.test.ts says when.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { collectExamples, EXAMPLE_SAMPLE } from "../src/http/openapi-examples.ts";
import { DATASETS, isHourly } from "../src/datasets/registry.ts";

const ROOT = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "gds-examples-"));
try {
  writeFileSync(join(dir, "sample.csv"), generateSampleExport(EXAMPLE_SAMPLE));
  ingestFiles([join(dir, "sample.csv")], { dir });
  const unlimited = { normalized_data: 1_000_000, features: 1_000_000 };
  const { key } = createKey(dir, { name: "examples", account: "examples", limits: unlimited });
  const { key: limited } = createKey(dir, {
    name: "limited",
    account: "examples",
    limits: { normalized_data: 1 },
  });
  const server = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir, PORT: "0", REDIS_URL: "", WORKERS: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = "";
    server.stderr.on("data", (chunk) => {
      seen += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(seen);
      if (m) resolve(Number(m[1]));
    });
    server.on("exit", () => reject(new Error(`the server exited: ${seen}`)));
  });
  const get = (path: string, k: string | undefined) =>
    fetch(`http://127.0.0.1:${port}${path}`, { headers: k === undefined ? {} : { "X-API-KEY": k } });
  const examples = await collectExamples(
    get,
    DATASETS.filter(isHourly).map((d) => d.path),
    { key, limited },
  );
  server.kill("SIGTERM");
  const out = join(ROOT, "src", "http", "openapi-examples.json");
  writeFileSync(out, JSON.stringify(examples, null, 2) + "\n");
  process.stderr.write(`Wrote ${out}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
