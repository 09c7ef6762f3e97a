/**
 * The OpenAPI document the service serves passes Redocly's recommended rules (the CLI is a dev
 * dependency; `redocly.yaml` says which rules are off, and why) with no error and no warning.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startServer, tempDir, writeFile } from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..");

test("the served openapi.json passes redocly lint's recommended rules", async (t) => {
  const server = await startServer(t, tempDir(t));
  const document = await (await server.raw("/api/v1/openapi.json")).text();
  const file = writeFile(tempDir(t), "openapi.json", document);
  const run = spawnSync(
    join(ROOT, "node_modules", ".bin", "redocly"),
    ["lint", file, "--config", join(ROOT, "redocly.yaml"), "--format", "json"],
    { cwd: ROOT, encoding: "utf8", timeout: 120_000, env: { ...process.env, REDOCLY_TELEMETRY: "off" } },
  );
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number } };
  assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
});
