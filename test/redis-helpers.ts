/**
 * Redis for the tests: each test gets a database of its own on the run's one redis-server
 * (`run-helpers.mjs`: run-suite.mjs starts it; a file run alone starts it once for its process),
 * so no test sees another's keys and no file starts a server per test. A test whose subject is an
 * outage or a busy Redis (it stops the server, or pauses its clients) has a server of its own
 * instead, started once per process and emptied for each test (`ownRedis`). `make test` installs
 * Debian's package when it can; without it these tests skip with the install command, except under
 * CI=true, where a missing redis-server fails the run.
 */
import { Redis } from "ioredis";
import type { TestContext } from "node:test";
import type { DocumentStore } from "../src/files/document-store.ts";
import { connectRedis, type RedisConnection } from "../src/shared/redis-connection.ts";
import { redisDocumentStore, sharedDocuments } from "../src/shared/shared-documents.ts";
import { skipUnless, tempDir } from "./helpers.ts";
import { REDIS_SERVER, spawnRedis, TEST_DATABASES } from "./run-helpers.mjs";

export const REDIS_SKIP = skipUnless(
  REDIS_SERVER !== undefined,
  "redis-server not found; install it with: apt-get install -y redis-server (make test does this when run as root)",
);

export interface TestRedis {
  readonly url: string;
  /** Stops the server, as an outage would (`ownRedis` only). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (`ownRedis` only). */
  start(): Promise<void>;
}

type Spawned = Awaited<ReturnType<typeof spawnRedis>>;
// The run's server when run-suite.mjs started one, else this process's; and this process's own.
let shared: Promise<string> | undefined;
let own: Promise<Spawned> | undefined;

const sharedServer = () =>
  (shared ??= process.env.GDS_TEST_REDIS
    ? Promise.resolve(process.env.GDS_TEST_REDIS)
    : spawnRedis().then((server) => server.url));

/** A database of the run's redis-server for this test alone, empty. */
export async function startRedis(_t: TestContext): Promise<TestRedis> {
  const server = await sharedServer();
  const counter = new Redis(server, { lazyConnect: true });
  await counter.connect();
  try {
    // Database 0 counts the databases given out; every other is a test's.
    const n = await counter.incr("gds-test:databases");
    const db = 1 + ((n - 1) % (TEST_DATABASES - 1));
    await counter.select(db);
    await counter.flushdb();
    const refuse = () => Promise.reject(new Error("A test that stops Redis needs ownRedis(t)"));
    return { url: `${server}/${db}`, stop: refuse, start: refuse };
  } finally {
    counter.disconnect();
  }
}

/** A redis-server this process alone uses, running and empty: for a test that stops or pauses it. */
export async function ownRedis(t: TestContext): Promise<TestRedis> {
  const server = await (own ??= spawnRedis());
  if (!server.running()) await server.start();
  const client = new Redis(server.url, { lazyConnect: true });
  await client.connect();
  await client.flushall();
  client.disconnect();
  // A test that stopped it leaves it running again for the next.
  t.after(async () => {
    if (!server.running()) await server.start();
  });
  return { url: server.url, stop: () => server.stop(), start: () => server.start() };
}

/**
 * A fresh redis-server and a connection to it as the service makes one, but with 10 s a command,
 * not 100 ms, which a loaded host may miss: for the tests whose subject that bound is not.
 */
export async function redisAndConnection(
  t: TestContext,
  options: { own?: boolean } = {},
): Promise<{
  redis: TestRedis;
  connection: RedisConnection;
}> {
  const redis = await (options.own ? ownRedis(t) : startRedis(t));
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
  options: { own?: boolean } = {},
): Promise<{ redis: TestRedis; connection: RedisConnection; vms: TestVm[] }> {
  const { redis, connection } = await redisAndConnection(t, options);
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
  // CLIENT PAUSE holds every client of the server: a server of this process's own.
  const redis = await ownRedis(t);
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
