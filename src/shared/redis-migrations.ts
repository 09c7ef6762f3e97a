/**
 * Upgrades of what an earlier release left in Redis (docs/operations.md: "Upgrades"), run by every
 * process that connects (a server once Redis is reachable, each CLI) before it uses the keys; once
 * done, a mark says so and the next process does nothing.
 *
 * Earlier builds named some keys with the connection's prefix already in them, so Redis held them
 * as `gds:gds:…`: 1.8.0 the dashboard's secret, the development builds after it the webhooks'
 * outbox too. Each is renamed to `gds:…`
 * unless that name is taken (left, and said). (The webhooks' sealing key, which those releases kept
 * in Redis, leaves it: `webhooks/redis-sealing.ts` looks for it under either name.)
 */
import type { Redis } from "ioredis";

/** The prefix the connection puts before every key (`redis-connection.ts`). */
const PREFIX = "gds:";
/** Set once the keys of the doubled prefix are moved. */
const DONE = "migrated:single-prefix";

/** Runs what is still to run; `log` hears what was moved and what was left. */
export async function migrateRedis(client: Redis, log: (line: string) => void): Promise<void> {
  if ((await client.exists(DONE)) === 1) return;
  let moved = 0;
  const left: string[] = [];
  // SCAN's pattern and the names it gives are the server's, without the connection's prefix.
  for await (const names of client.scanStream({ match: `${PREFIX}${PREFIX}*`, count: 500 })) {
    for (const name of names as string[]) {
      // RENAMENX's names get the prefix: `gds:` + `gds:x` is the old name, `gds:` + `x` the new.
      const from = name.slice(PREFIX.length);
      const to = name.slice(2 * PREFIX.length);
      try {
        if ((await client.renamenx(from, to)) === 1) moved += 1;
        else left.push(name);
      } catch (error) {
        // Renamed meanwhile by another process that started with this one.
        if (!/no such key/i.test(String(error))) throw error;
      }
    }
  }
  await client.set(DONE, new Date().toISOString());
  if (moved > 0) log(`Redis: ${moved} keys named gds:gds:… by an earlier release are now gds:…`);
  if (left.length > 0) {
    log(
      `Redis: ${left.length} keys named gds:gds:… were left, as their new names are taken: ${left.slice(0, 5).join(", ")}${left.length > 5 ? ", …" : ""}`,
    );
  }
}
