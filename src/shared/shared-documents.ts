/**
 * The JSON documents every process must agree on (keys, accounts, sessions), kept in Redis when
 * `REDIS_URL` is set (docs/operations.md: "Running on more than one core or VM"). Redis holds the one true
 * text of each; every process keeps a copy at the usual path in its `DATA_DIR`, which the file
 * readers (key and account registries, the dashboard) read as before.
 *
 * - A change is a compare-and-set on the document's version (one Lua script), retried when another
 *   process changed it first, so concurrent changes merge rather than overwrite. The writer
 *   replaces its local copy at once.
 * - Every process follows: a notice on the channel `gds:docs` on each change, and a check of the
 *   versions every second as the safety net, so a change anywhere reaches every copy within a
 *   second (milliseconds when the notice arrives).
 * - While Redis holds no document (before `npm run shared-state -- import`), the local file stays
 *   as it is, and the follower says so once.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Redis } from "ioredis";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { type DocumentStore, localText } from "../files/document-store.ts";
import type { RedisConnection } from "./redis-connection.ts";
import { SharedStateUnavailable } from "./shared-state-unavailable.ts";

/**
 * The documents Redis holds, by their path in DATA_DIR: keys, accounts and sessions, the request
 * counts and last-use times the dashboard shows (merged by addition and by the later time, so
 * every VM's requests count), and the webhook subscriptions.
 */
export const SHARED_FILES = [
  "keys.json",
  "accounts.json",
  "sessions.json",
  "request-counts.json",
  "key-usage.json",
  "webhooks/subscriptions.json",
] as const;
export type SharedFile = (typeof SHARED_FILES)[number];

/**
 * The channel of change notices: Redis's channels are the server's, not a database's, so a
 * service on another database than 0 (REDIS_URL's `/<db>`) names its own.
 */
function channelOf(connection: RedisConnection): string {
  const db = connection.client.options.db ?? 0;
  return db === 0 ? "gds:docs" : `gds:docs:${db}`;
}
/** How long a marked change is known as applied: its retry comes at the next flush, a minute on. */
const APPLIED_S = 3_600;
// KEYS: the document, its version, the change's own mark. ARGV: the version read, the new text,
// the file, whether the change is marked, and the channel of notices. 1 when set, 0 on a race, 2
// when the marked change was applied already (its answer was lost, and it is made again).
const COMPARE_AND_SET = `
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[3]) == 1 then return 2 end
local current = redis.call('GET', KEYS[2]) or '0'
if current ~= ARGV[1] then return 0 end
if ARGV[4] == '1' then redis.call('SET', KEYS[3], '1', 'EX', ${APPLIED_S}) end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[5], ARGV[3])
return 1
`;

type Scripted = Redis & {
  gdsCompareAndSet(
    doc: string,
    version: string,
    mark: string,
    read: string,
    text: string,
    file: string,
    marked: "0" | "1",
    channel: string,
  ): Promise<number>;
};

export interface SharedDocuments {
  /** Applies `change` to the document's current text (null when Redis holds none) and stores the text it returns. */
  update<T>(
    file: SharedFile,
    dir: string,
    change: (text: string | null) => { text: string | null; result: T },
    once?: string,
  ): Promise<T>;
  /** The document's text and version in Redis. */
  read(file: SharedFile): Promise<{ text: string | null; version: string }>;
  /** Replaces the document whatever it holds (`import`). */
  replace(file: SharedFile, text: string): Promise<void>;
  /** Keeps the copies in `dir` current until the returned function is called. */
  follow(dir: string, log: (line: string) => void): () => void;
}

const docKey = (file: SharedFile) => `doc:${file}`;
const versionKey = (file: SharedFile) => `doc:${file}:version`;

/**
 * The first time this process replaces a local file that differs from Redis's copy, the local
 * text is kept beside it as `<file>.before-redis` (once: an existing one is never overwritten),
 * so a VM that held keys Redis never had loses nothing.
 */
function keepBeforeRedis(dir: string, file: SharedFile, text: string, log: (line: string) => void): void {
  const path = join(dir, file);
  const kept = `${path}.before-redis`;
  if (!existsSync(path) || existsSync(kept)) return;
  const local = readFileSync(path, "utf8");
  if (local === text) return;
  writeFileAtomic(kept, local, { mode: 0o600 });
  log(`${file} in DATA_DIR differed from Redis's and is replaced by it; the local text is kept in ${kept}`);
}

function writeLocal(dir: string, file: SharedFile, text: string): void {
  const path = join(dir, file);
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, text, { mode: 0o600 });
}

function follower(
  connection: RedisConnection,
  read: SharedDocuments["read"],
  dir: string,
  log: (line: string) => void,
): () => void {
  const seen = new Map<SharedFile, string>();
  const unshared = new Set<SharedFile>();
  // One read at a time per file, so an older answer never lands after a newer one.
  const chains = new Map<SharedFile, Promise<void>>();
  const sync = (file: SharedFile): Promise<void> => {
    const next = (chains.get(file) ?? Promise.resolve()).then(() => syncNow(file));
    chains.set(
      file,
      next.catch(() => {}),
    );
    return next;
  };
  const syncNow = async (file: SharedFile) => {
    const { text, version } = await read(file);
    if (seen.get(file) === version) return;
    const first = !seen.has(file);
    seen.set(file, version);
    if (text !== null) {
      if (first) keepBeforeRedis(dir, file, text, log);
      return writeLocal(dir, file, text);
    }
    if (!unshared.has(file) && existsSync(join(dir, file))) {
      log(`Redis holds no ${file}: serving DATA_DIR's own; run npm run shared-state -- import to share it`);
    }
    unshared.add(file);
  };
  // The safety net: one read of every version, and a document's text only when its version moved.
  const syncAll = async () => {
    try {
      const versions = await connection.client.mget(...SHARED_FILES.map(versionKey));
      const moved = SHARED_FILES.filter(
        (file, i) => !seen.has(file) || seen.get(file) !== (versions[i] ?? "0"),
      );
      await Promise.all(moved.map(sync));
    } catch {
      // an outage is logged by the connection
    }
  };
  const subscriber = connection.subscriber();
  const notices = channelOf(connection);
  const onMessage = (channel: string, file: string) => {
    if (channel === notices && (SHARED_FILES as readonly string[]).includes(file))
      void sync(file as SharedFile).catch(() => {});
  };
  subscriber.on("message", onMessage);
  void subscriber.subscribe(notices).catch(() => {});
  void syncAll();
  const timer = setInterval(() => void syncAll(), 1_000);
  timer.unref();
  return () => {
    clearInterval(timer);
    subscriber.off("message", onMessage);
  };
}

// Stores `text` if the document is still at `version`: 1 when set, 0 on a race, 2 when the change
// named `once` was applied already.
function compareAndSet(
  connection: RedisConnection,
  change: { file: SharedFile; version: string; text: string; once?: string },
) {
  const { file, version, text, once } = change;
  const [mark, marked] =
    once === undefined ? ["doc:applied:", "0" as const] : [`doc:applied:${once}`, "1" as const];
  const redis = connection.client as Scripted;
  return redis.gdsCompareAndSet(
    docKey(file),
    versionKey(file),
    mark,
    version,
    text,
    file,
    marked,
    channelOf(connection),
  );
}

/** The shared documents on `connection`. */
export function sharedDocuments(connection: RedisConnection): SharedDocuments {
  const redis = connection.client as Scripted;
  redis.defineCommand("gdsCompareAndSet", { numberOfKeys: 3, lua: COMPARE_AND_SET });

  async function read(file: SharedFile) {
    const [text, version] = await redis.mget(docKey(file), versionKey(file));
    return { text: text ?? null, version: version ?? "0" };
  }

  async function tryUpdate<T>(
    file: SharedFile,
    dir: string,
    change: (text: string | null) => { text: string | null; result: T },
    once: string | undefined,
  ) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const current = await read(file);
      const { text, result } = change(current.text);
      if (text === null || text === current.text) return result; // nothing changed: no write, no notice
      const set = await compareAndSet(connection, { file, version: current.version, text, once });
      if (set === 0) continue; // another process changed it meanwhile: again, from its text
      // Set, or set already by the try whose answer was lost (the text read holds that change).
      writeLocal(dir, file, set === 1 ? text : (current.text ?? text));
      return result;
    }
    throw new Error(`${file} in Redis kept changing under this update; try again`);
  }

  // A command while Redis is away is refused as unavailable (a 503 to retry), never a 500.
  async function unlessAway<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SharedStateUnavailable) throw error;
      // ioredis says a command timed out, or the socket is not writeable, only in its message.
      if (!connection.up || /timed out|writeable|ECONN/i.test(String(error)))
        throw new SharedStateUnavailable(error);
      throw error;
    }
  }

  return {
    update: (file, dir, change, once) => unlessAway(() => tryUpdate(file, dir, change, once)),
    read: (file) => unlessAway(() => read(file)),
    async replace(file, text) {
      const current = await read(file);
      await compareAndSet(connection, { file, version: current.version, text });
    },
    follow: (dir, log) => follower(connection, read, dir, log),
  };
}

/**
 * The documents in Redis as the store every owner of a document takes (`files/document-store.ts`):
 * before Redis holds a document, a change starts from `dir`'s copy, so nothing kept is lost.
 */
export function redisDocumentStore(shared: SharedDocuments, dir: string): DocumentStore {
  return {
    dir,
    update(file, change, once) {
      if (!(SHARED_FILES as readonly string[]).includes(file.name)) {
        throw new RangeError(`${file.name} is not a document Redis holds`);
      }
      const name = file.name as SharedFile;
      return shared.update(name, dir, (text) => change(text ?? localText(dir, file.name)), once);
    },
    async read(file) {
      // Before Redis holds the document, DATA_DIR's is the one a change would start from.
      const { text } = await shared.read(file.name as SharedFile);
      return text ?? localText(dir, file.name);
    },
  };
}
