/**
 * The helper processes a test run pays for once (docs/development.md: "Tests"): one redis-server
 * and one Chromium for every test file of the run. `run-suite.mjs` starts them before the files
 * and hands them down in the environment (`GDS_TEST_REDIS`, `GDS_TEST_BROWSER`); a file run on
 * its own starts them itself, once for its process (`redis-helpers.ts`, `dashboard-helpers.ts`).
 * Each is stopped when its process exits. Plain JavaScript: run-suite.mjs loads it before any
 * TypeScript hook applies.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where redis-server is, or undefined. */
export const REDIS_SERVER = (() => {
  try {
    return execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

/** Where Debian's chromium is. */
export const CHROMIUM = "/usr/bin/chromium";

/** The flags Chromium needs on these machines (no sandbox as root, no calls to Google). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--no-first-run",
];

/** How many databases a test redis-server has: each test that asks for Redis gets one of its own. */
export const TEST_DATABASES = 1024;

/** A loopback port free right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A redis-server on a free loopback port, without persistence, in a directory of its own; it is
 * stopped (and its directory removed) when this process exits. `start` and `stop` run it again
 * on the same port, empty, and stop it, as an outage would.
 */
export async function spawnRedis() {
  if (REDIS_SERVER === undefined)
    throw new Error("redis-server is not installed: apt-get install -y redis-server");
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "gds-redis-"));
  let child;
  const start = async () => {
    child = spawn(
      REDIS_SERVER,
      [
        ...["--port", String(port), "--bind", "127.0.0.1", "--databases", String(TEST_DATABASES)],
        ...["--save", "", "--appendonly", "no", "--dir", dir],
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let seen = "";
    await new Promise((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        seen += chunk.toString();
        if (seen.includes("Ready to accept connections")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${seen}`)));
    });
    child.stdout.resume();
    // The server is this process's helper, not its work: it must not keep the process from exiting
    // when its tests are done (it is killed then).
    child.stdout.unref();
    child.unref();
  };
  const stop = async () => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  process.once("exit", () => {
    if (child !== undefined && child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    running: () => child.exitCode === null && child.signalCode === null,
  };
}

/** A Chromium server playwright clients connect to (`chromium.connect`); closed when this process exits. */
export async function launchBrowserServer() {
  if (!existsSync(CHROMIUM)) return undefined;
  const { chromium } = await import("playwright-core");
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  process.once("exit", () => {
    const pid = server.process().pid;
    if (pid !== undefined) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  });
  return server;
}
