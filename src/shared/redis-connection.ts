/**
 * The connection to Redis, where the shared state lives when `REDIS_URL` is set (docs/operations.md: "Running
 * on more than one core or VM"). Every command is bounded: nothing queues while Redis is away
 * (`enableOfflineQueue: false`), and a command that gets no answer in `commandTimeoutMs` (100 ms by
 * default) fails, so a request never waits longer on Redis. The client reconnects by itself, every
 * second at most; `up` says whether it is connected now, and each change is logged once.
 */
import { Redis } from "ioredis";

export interface RedisConnection {
  readonly client: Redis;
  /** Whether the connection is ready for commands now. */
  readonly up: boolean;
  /** A second connection in subscriber mode, for change notices (made on first use). */
  subscriber(): Redis;
  /** Resolves when the connection is ready, or after `ms` when it is not (it keeps trying). */
  ready(ms: number): Promise<boolean>;
  close(): Promise<void>;
}

const OPTIONS = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 1_000,
  // A connection closed while its socket is still connecting (Redis away) is destroyed after this,
  // not after ioredis's 2 s, which a CLI told "unreachable" or a stopping server sat out.
  disconnectTimeout: 200,
  // Reconnect at once, then back off to once a second: recovery within a second of Redis's return.
  retryStrategy: (times: number) => Math.min(times * 100, 1_000),
  // The service's keys in a shared Redis all begin with this.
  keyPrefix: "gds:",
} as const;

/** Connects to `url`; `log` hears of every loss and recovery. */
export function connectRedis(
  url: string,
  options: { log: (line: string) => void; commandTimeoutMs?: number },
): RedisConnection {
  const client = new Redis(url, { ...OPTIONS, commandTimeout: options.commandTimeoutMs ?? 100 });
  const where = redactedUrl(url);
  let up = false;
  let lost = false;
  client.on("ready", () => {
    up = true;
    if (lost) options.log(`Redis at ${where} is reachable again`);
    lost = false;
  });
  const down = (why: string) => {
    up = false;
    if (!lost) options.log(`Redis at ${where} is unreachable (${why})`);
    lost = true;
  };
  client.on("error", (error: Error) => down(error.message));
  client.on("close", () => down("connection closed"));
  let sub: Redis | undefined;
  return {
    client,
    get up() {
      return up;
    },
    subscriber() {
      sub ??= new Redis(url, { ...OPTIONS, enableOfflineQueue: true, keyPrefix: undefined });
      sub.on("error", () => {}); // the main connection reports the outage
      return sub;
    },
    ready(ms) {
      if (up) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        client.once("ready", () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    async close() {
      client.disconnect();
      sub?.disconnect();
      await Promise.resolve();
    },
  };
}

/** The URL without its password, for logs. */
export function redactedUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}
