/**
 * The dashboard's show-once secrets (`dashboard/reveal.ts`) when several processes serve: the
 * page that shows a new key may be served by another process than the one that made it, so the
 * secret waits in Redis for at most five minutes, and is taken with GETDEL (once, atomically).
 * It is encrypted (AES-256-GCM) with a key derived from the session id, which only the browser's
 * cookie holds (the server keeps its hash), so what Redis holds is of no use without the cookie.
 * A command Redis does not answer in time is the shared state out of reach: a 503 to retry, as
 * every other Redis store answers it, never a 500.
 */
import { hkdfSync } from "node:crypto";
import type { Redis } from "ioredis";
import { sessionHash } from "../accounts/session-store.ts";
import { seal, unseal } from "../files/sealing.ts";
import { unlessAway } from "../shared/shared-state-unavailable.ts";
import type { Reveal, RevealStore } from "./reveal.ts";

const TTL_MS = 5 * 60_000;

function keyFor(sessionId: string): Buffer {
  return Buffer.from(hkdfSync("sha256", sessionId, "", "gds reveal", 32));
}

/** A reveal store on `redis`. */
export function createRedisRevealStore(redis: Redis): RevealStore {
  return {
    async put(sessionId, reveal) {
      const sealed = seal(keyFor(sessionId), JSON.stringify(reveal));
      await unlessAway(redis.set(`reveal:${sessionHash(sessionId)}:${reveal.kind}`, sealed, "PX", TTL_MS));
    },
    async take(sessionId, kind) {
      const sealed = await unlessAway(redis.getdel(`reveal:${sessionHash(sessionId)}:${kind}`));
      if (sealed === null) return undefined;
      return JSON.parse(unseal(keyFor(sessionId), sealed)) as Reveal;
    },
  };
}
