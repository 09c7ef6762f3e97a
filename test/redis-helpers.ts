/**
 * A real redis-server for the shared-state tests, started on a free loopback port with no
 * persistence in a temporary directory, and stopped after. `make test` installs Debian's
 * package when it can; without it these tests skip with the install command, except under
 * CI=true, where a missing redis-server fails the run.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import type { TestContext } from "node:test";
import { freePort, skipUnless, tempDir } from "./helpers.ts";

function which(command: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const REDIS = which("redis-server");

export const REDIS_SKIP = skipUnless(
  REDIS !== undefined,
  "redis-server not found; install it with: apt-get install -y redis-server (make test does this when run as root)",
);

export interface TestRedis {
  readonly url: string;
  /** Stops the server, as an outage would. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

/** Starts redis-server for the test; it stops when the test ends. */
export async function startRedis(t: TestContext): Promise<TestRedis> {
  if (REDIS === undefined) throw new Error("redis-server is not installed: apt-get install -y redis-server");
  const port = await freePort();
  const dir = tempDir(t, "gds-redis-");
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      REDIS,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let seen = "";
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes("Ready to accept connections")) resolve();
      });
      child!.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${seen}`)));
    });
  };
  const stop = async () => {
    if (child === undefined || child.exitCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGKILL");
    await exited;
  };
  await start();
  t.after(stop);
  return { url: `redis://127.0.0.1:${port}`, stop, start };
}
