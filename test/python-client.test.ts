/**
 * The Python client (clients/python), installed with pip into a fresh virtual environment over
 * Debian's python3, pandas and requests, against a real server on loopback: its own tests
 * (clients/python/tests), which compare its frames with the API's JSON, wait on a limited key as
 * the server says and raise at once on a revoked key and a bad request; then the README's example
 * as written. The limiter's clock is the test's, moved by the client's sleeps through a loopback
 * address, so that waiting a minute takes no minute.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, relative } from "node:path";
import { ForecastIssues } from "../src/forecasts/forecast-issues.ts";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { createKey, revokeKey } from "../src/keys/key-admin.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { generateSampleForecastIssues, SAMPLE_FORECAST_NAME } from "../src/sample/sample-forecast.ts";
import { DATASETS } from "../src/datasets/registry.ts";
import { fixtureDataset } from "./fixtures/fixture-dataset.ts";
import { skipUnless, startServer, tempDir, writeFile } from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..");
const PYTHON = "/usr/bin/python3";
const HOUR = 3_600_000;
const has = (args: string[]) =>
  existsSync(PYTHON) && spawnSync(PYTHON, args, { stdio: "ignore" }).status === 0;
const SKIP = skipUnless(
  has(["-c", "import pandas, requests, venv, ensurepip"]),
  "Debian's python3 with pandas, requests and venv is not installed (apt-get install -y --no-install-recommends python3-pandas python3-requests python3-venv; make test does this as root)",
);

function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  return new Promise<string>((resolve, reject) =>
    execFile(command, args, { ...options, timeout: 600_000, maxBuffer: 1 << 24 }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${command} ${args.join(" ")} failed:\n${stdout}\n${stderr}`))
        : resolve(stdout + stderr),
    ),
  );
}

// The client's virtual environment, pip-installed from a copy of its folder (pip builds in the
// source tree), kept in .cache/ under the hash of the client's files and the Python it runs on:
// made once, then reused by every run until the client or the Python changes.
let venv: Promise<{ python: string; client: string }> | undefined;
function installedClient() {
  venv ??= (async () => {
    const hash = createHash("sha256").update(spawnSync(PYTHON, ["--version"]).stdout);
    for (const file of clientFiles(join(ROOT, "clients", "python"))) {
      hash.update(relative(ROOT, file)).update(readFileSync(file));
    }
    const cache = join(ROOT, ".cache", "python-client");
    const root = join(cache, hash.digest("hex").slice(0, 16));
    const made = { python: join(root, "env", "bin", "python"), client: join(root, "client") };
    if (existsSync(join(root, "ready"))) return made;
    rmSync(cache, { recursive: true, force: true }); // the venvs of older clients, and a half-made one
    cpSync(join(ROOT, "clients", "python"), made.client, { recursive: true });
    await run(PYTHON, ["-m", "venv", "--system-site-packages", join(root, "env")]);
    await run(made.python, [
      "-m",
      "pip",
      "install",
      "--quiet",
      "--no-index",
      "--no-build-isolation",
      made.client,
    ]);
    writeFileSync(join(root, "ready"), "");
    return made;
  })();
  return venv;
}

// Every file of the client's folder but what Python and pip leave in it.
function clientFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (/^(__pycache__|build|.*\.egg-info)$/.test(entry.name)) return [];
    return entry.isDirectory() ? clientFiles(path) : [path];
  });
}

const T1 = Date.parse("2026-01-03T00:00:00Z");
const T2 = T1 + 24 * HOUR;

/** Two years and two days of sample hours (ingested at T1), one day revised (at T2), three forecast issues. */
function store(t: TestContext): string {
  const dir = tempDir(t);
  const files = tempDir(t);
  const whole = writeFile(files, "sample.csv", generateSampleExport({ firstDay: "2024-01-01", days: 732 }));
  assert.deepEqual(ingestFiles([whole], { dir, now: () => T1 }).failures, []);
  const revised = writeFile(
    files,
    "revised.csv",
    generateSampleExport({ firstDay: "2025-06-01", days: 1, seed: 7 }),
  );
  assert.deepEqual(ingestFiles([revised], { dir, now: () => T2 }).failures, []);
  const issues = new ForecastIssues(dir);
  for (const { text, receivedAt } of generateSampleForecastIssues(T2, 3)) {
    issues.add(text, { name: SAMPLE_FORECAST_NAME, receivedAt, sha256: String(receivedAt), sample: true });
  }
  return dir;
}

/** A loopback address that moves `clock` on by the seconds POSTed to it. */
async function clockControl(t: TestContext, move: (ms: number) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      move(Number(body) * 1000);
      res.end("moved");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

test(
  "the Python client, pip-installed, passes its tests against a real server",
  { skip: SKIP },
  async (t) => {
    const dir = store(t);
    let clock = T2 + HOUR;
    const server = await startServer(t, dir, { now: () => clock });
    const limited = createKey(dir, { name: "limited", account: "tests", limits: { normalized_data: 3 } });
    const revoked = createKey(dir, { name: "revoked", account: "tests" });
    revokeKey(dir, revoked.record.id);
    const clockUrl = await clockControl(t, (ms) => (clock += ms));
    const { python, client } = await installedClient();
    const day = new Date(T2 + 2 * HOUR).toISOString().slice(0, 10);
    const out = await run(python, ["-m", "unittest", "discover", "-s", join(client, "tests"), "-v"], {
      cwd: tempDir(t),
      env: {
        ...process.env,
        GDS_URL: server.url,
        GDS_KEY: server.key,
        GDS_LIMITED_KEY: limited.key,
        GDS_REVOKED_KEY: revoked.key,
        GDS_CLOCK_URL: clockUrl,
        GDS_BETWEEN_INGESTS: new Date(T1 + 12 * HOUR).toISOString(),
        GDS_FORECAST_START: day,
        GDS_FORECAST_END: new Date(Date.parse(day) + 2 * 24 * HOUR).toISOString().slice(0, 10),
      },
    });
    assert.match(out, /^OK$/m, out);
    assert.doesNotMatch(out, /skipped/, out);
    assert.doesNotMatch(out, /ResourceWarning/, "every connection is closed");
    // The client waited on the server's word only: every 429 it was given was answered once.
    const throttled = server.logs.filter((entry) => entry.status === 429).length;
    assert.ok(throttled >= 2, `429s answered: ${throttled}`);
  },
);

test(
  "the README's client example runs as written",
  {
    skip:
      SKIP ||
      skipUnless(
        has(["-c", "import matplotlib"]),
        "matplotlib is not installed (apt-get install -y --no-install-recommends python3-matplotlib; make test does this as root)",
      ),
  },
  async (t) => {
    const dir = store(t);
    const server = await startServer(t, dir);
    const { python } = await installedClient();
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const snippet = /<!-- example: python-client -->\s*```python\n([\s\S]*?)```/.exec(readme)![1]!;
    const cwd = tempDir(t);
    const out = await run(python, ["-c", snippet], {
      cwd,
      env: { ...process.env, GDS_URL: server.url, GDS_KEY: server.key, MPLBACKEND: "Agg" },
    });
    assert.match(out, /generation\.mix\s+\/api\/v1\/generation\/mix/);
    assert.match(out, /avg_residual_demand_mw\s+renewable_share_pct/);
    assert.match(out, /SampleDataWarning/);
    assert.ok(existsSync(join(cwd, "generation-week.png")), "the chart was saved");
  },
);

test(
  "the Python client finds a dataset it was never told of, from the catalog",
  { skip: SKIP },
  async (t) => {
    const dir = store(t);
    const server = await startServer(t, dir, { datasets: [...DATASETS, fixtureDataset] });
    const { python } = await installedClient();
    const script = [
      "import warnings; warnings.simplefilter('ignore')",
      "from gridsa import Client",
      "c = Client()",
      "print(c.datasets().loc['test.peak_demand', 'path'])",
      "df = c.get('test.peak_demand', '2025-06-01', '2025-06-03', interval='1d')",
      "print(list(df.columns), len(df))",
      "print(len(c.latest('test.peak_demand', hours=5)))",
    ].join("\n");
    const out = await run(python, ["-c", script], {
      cwd: tempDir(t),
      env: { ...process.env, GDS_URL: server.url, GDS_KEY: server.key },
    });
    assert.match(out, /^\/api\/v1\/test\/peak-demand$/m);
    assert.match(out, /^\['peak_demand_mw', 'hours'\] 2$/m);
    assert.match(out, /^5$/m);
  },
);

test("the client's version follows the service's", () => {
  const service = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string })
    .version;
  const pyproject = readFileSync(join(ROOT, "clients", "python", "pyproject.toml"), "utf8");
  const init = readFileSync(join(ROOT, "clients", "python", "src", "gridsa", "__init__.py"), "utf8");
  assert.match(pyproject, new RegExp(`^version = "${service.replaceAll(".", "\\.")}"$`, "m"));
  assert.match(init, new RegExp(`^__version__ = "${service.replaceAll(".", "\\.")}"$`, "m"));
});
