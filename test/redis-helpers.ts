/**
 * A real redis-server for the shared-state tests, started on a free loopback port with no
 * persistence in a temporary directory, and stopped after. `make test` installs Debian's
 * package when it can; without it these tests skip with the install command, except under
 * CI=true, where a missing redis-server fails the run.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import type { TestContext } from "node:test";
import type { DocumentStore } from "../src/files/document-store.ts";
import { connectRedis, type RedisConnection } from "../src/shared/redis-connection.ts";
import { redisDocumentStore, sharedDocuments } from "../src/shared/shared-documents.ts";
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

/**
 * A fresh redis-server and a connection to it as the service makes one, but with 10 s a command,
 * not 100 ms, which a loaded host may miss: for the tests whose subject that bound is not.
 */
export async function redisAndConnection(t: TestContext): Promise<{
  redis: TestRedis;
  connection: RedisConnection;
}> {
  const redis = await startRedis(t);
  const connection = connectRedis(redis.url, { log: () => {}, commandTimeoutMs: 10_000 });
  t.after(() => connection.close());
  if (!(await connection.ready(3_000))) throw new Error("redis-server did not answer");
  return { redis, connection };
}

/** A VM of the shared-state tests: its DATA_DIR, and its documents kept in Redis as REDIS_URL keeps them. */
export interface TestVm {
  readonly dir: string;
  readonly documents: DocumentStore;
}

/**
 * `count` VMs on one fresh redis-server (`redisAndConnection`'s), each with its DATA_DIR. None
 * follows Redis's notices, so only a catch-up tells one VM of another's writes.
 */
export async function vmsOnRedis(
  t: TestContext,
  count: number,
): Promise<{ redis: TestRedis; connection: RedisConnection; vms: TestVm[] }> {
  const { redis, connection } = await redisAndConnection(t);
  const shared = sharedDocuments(connection);
  const vms = Array.from({ length: count }, () => {
    const dir = tempDir(t);
    return { dir, documents: redisDocumentStore(shared, dir) };
  });
  return { redis, connection, vms };
}

/**
 * A fresh redis-server and two connections to it: `quick` gives up on a command after 500 ms,
 * `patient` outlasts `busy`, which holds Redis's commands (all, or only writes) for 2 s with
 * CLIENT PAUSE, as a busy Redis would: a command of `quick`'s times out there, and runs after.
 * (The service's own bound is 100 ms; a loaded test host can take that long to answer any
 * command, and `quick` must time out only where the test makes Redis busy.)
 */
export async function quickAndPatient(t: TestContext): Promise<{
  quick: RedisConnection;
  patient: RedisConnection;
  busy: (mode?: "ALL" | "WRITE") => Promise<unknown>;
}> {
  const redis = await startRedis(t);
  const quick = connectRedis(redis.url, { log: () => {}, commandTimeoutMs: 500 });
  const patient = connectRedis(redis.url, { log: () => {}, commandTimeoutMs: 10_000 });
  t.after(() => Promise.all([quick.close(), patient.close()]));
  if (!((await quick.ready(3_000)) && (await patient.ready(3_000))))
    throw new Error("redis-server did not answer");
  return { quick, patient, busy: (mode = "ALL") => patient.client.call("CLIENT", "PAUSE", "2000", mode) };
}

/**
 * Whether `res` is the 503 of the shared state out of reach ("Service temporarily unavailable.",
 * Retry-After 1): what a Redis command past the service's 100 ms bound is answered with, as it may
 * be on a loaded test host. A client is told to ask again in a second.
 */
export const unavailable = (res: Response): boolean =>
  res.status === 503 && res.headers.get("retry-after") === "1";

/**
 * `send()`'s answer, sent again while it is that 503 (every 100 ms, for 60 s at most): for a test
 * on Redis whose subject is not that 503, so that a loaded host does not fail it. Any other answer
 * is the test's to judge; so is the 503 still there after 60 s.
 */
export async function answered(send: () => Promise<Response>): Promise<Response> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await send();
    if (!unavailable(res) || Date.now() > deadline) return res;
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
