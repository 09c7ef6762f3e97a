/**
 * The README's examples, run as written against a live server: curl, Python, pandas and R
 * (Debian's python3-pandas and r-base-core, which make test installs as root).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, skipUnless, startServer, tempDir } from "./helpers.ts";

const README = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

function example(name: string): string {
  const m = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(README);
  assert.ok(m, `the README has the ${name} example`);
  return m[1]!;
}

function has(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: "ignore" }).status === 0;
}

// Why a client's example cannot run here, or false when it can; under CI a missing one fails the run.
function clientMissing(present: boolean, what: string, debianPackage: string): string | false {
  return skipUnless(
    present,
    `${what} is not installed (Debian: apt-get install -y --no-install-recommends ${debianPackage}; make test does this as root)`,
  );
}

// The examples ask for recent days, as make serve's sample holds them: one ending at the last whole hour.
async function live(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  const lastHour = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
  ingestTexts(dir, { "sample.csv": generateSampleExport({ lastHour, days: 20 }) });
  const server = await startServer(t, dir);
  return { env: { ...process.env, GDS_URL: server.url, GDS_KEY: server.key }, server };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { env, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} failed: ${stderr || error.message}`)) : resolve(stdout),
    ),
  );
}

test("the README's curl example returns CSV", async (t) => {
  const { env } = await live(t);
  const out = await run("bash", ["-c", example("curl")], env);
  const lines = out.trimEnd().split("\r\n");
  assert.equal(lines[0]!.split(",")[0], "date");
  assert.ok(lines[0]!.includes("avg_thermal_mw"));
  assert.equal(lines.length, 1 + 7);
});

test("the README's Python (urllib) example runs with the machine's python3", async (t) => {
  const { env } = await live(t);
  const out = await run(PYTHON, ["-c", example("python-urllib")], env);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  assert.match(out, new RegExp(`^24 ${yesterday}T00:00:00\\+00:00 \\d+(\\.\\d+)?\n$`));
});

test(
  "the README's pandas one-liner gives a DataFrame",
  {
    skip: clientMissing(has(PYTHON, ["-c", "import pandas"]), "pandas", "python3-pandas"),
  },
  async (t) => {
    const { env } = await live(t);
    const out = await run(PYTHON, ["-c", example("python-pandas")], env);
    assert.match(out, /^\(168, 9\) \d+(\.\d+)?\n$/);
  },
);

test(
  "the README's R example reads the CSV",
  {
    skip: clientMissing(has("Rscript", ["--version"]), "R", "r-base-core"),
  },
  async (t) => {
    const { env } = await live(t);
    const out = await run("Rscript", ["-e", example("r")], env);
    assert.match(out, /^168 \d+(\.\d+)? \n?$/);
  },
);
