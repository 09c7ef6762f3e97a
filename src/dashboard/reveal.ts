/**
 * Secrets shown once: a new key, a new account's one-time password, or a webhook's signing secret. The action that makes one
 * leaves it here for its session and redirects; the page that shows it takes it out, so a reload
 * finds nothing. It is held in memory only, for at most five minutes, and never written anywhere;
 * with several processes (REDIS_URL) it waits in Redis instead (`redis-reveals.ts`),
 * encrypted with a key only the session's cookie gives.
 */

import { sessionHash as sessionHashOf } from "../accounts/session-store.ts";

const TTL_MS = 5 * 60_000;

/** A secret waiting to be shown: what it is, a label for the page, and the secret itself. */
export interface Reveal {
  readonly kind: "key" | "password" | "webhook-secret";
  readonly label: string;
  readonly secret: string;
}

/** Reveals by session id (the cookie's value, which only the browser holds). */
export interface RevealStore {
  put(sessionId: string, reveal: Reveal): Promise<void>;
  /** Takes the session's waiting secret of that kind, if any; it is gone afterwards. */
  take(sessionId: string, kind: Reveal["kind"]): Promise<Reveal | undefined>;
}

/** A reveal store on the clock `now`. */
export function createRevealStore(options: { now?: () => number } = {}): RevealStore {
  const now = options.now ?? Date.now;
  const waiting = new Map<string, Reveal & { expires: number }>();
  return {
    async put(sessionId, reveal) {
      await Promise.resolve();
      const sessionHash = sessionHashOf(sessionId);
      const t = now();
      for (const [id, r] of waiting) if (r.expires <= t) waiting.delete(id);
      waiting.set(sessionHash, { ...reveal, expires: t + TTL_MS });
    },
    async take(sessionId, kind) {
      await Promise.resolve();
      const sessionHash = sessionHashOf(sessionId);
      const r = waiting.get(sessionHash);
      if (r === undefined || r.kind !== kind) return undefined;
      waiting.delete(sessionHash);
      return r.expires > now() ? { kind: r.kind, label: r.label, secret: r.secret } : undefined;
    },
  };
}
