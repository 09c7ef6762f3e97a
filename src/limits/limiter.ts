/**
 * A rolling-window limiter: a request is allowed when fewer than `limit` requests were allowed
 * for the same key and scope in the last 60 seconds. A refused request is not counted. It keeps
 * at most `limit` timestamps per key and scope and forgets keys that went idle. The clock is
 * injected, so tests need no sleeping. Like upstash/ratelimit, `check` never throws.
 */
import { WINDOW_MS } from "./scopes.ts";

/** The outcome of one check. */
export interface LimitResult {
  readonly success: boolean;
  readonly limit: number;
  /** Requests still allowed in the window after this one. */
  readonly remaining: number;
  /** Whole seconds (rounded up) until the oldest counted request leaves the window; 0 when none. */
  readonly reset: number;
}

/** Any limiter: this process's own, or one shared through Redis (`redis-limiter.ts`). */
export interface Limiter {
  check(key: string, scope: string, limit: number): LimitResult | Promise<LimitResult>;
}

/** The limiter of this process, which answers at once. */
export interface LocalLimiter extends Limiter {
  check(key: string, scope: string, limit: number): LimitResult;
  /** How many key-and-scope windows are held, for memory checks. */
  readonly size: number;
  /** How many request times are held in all, for memory checks. */
  readonly stamps: number;
}

interface Window {
  stamps: number[];
  head: number;
}

/** A limiter over `windowMs` (60 s by default) on the clock `now`. */
export function createLimiter(options: { now?: () => number; windowMs?: number } = {}): LocalLimiter {
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? WINDOW_MS;
  const windows = new Map<string, Window>();
  let nextSweep = now() + windowMs;

  // Forget windows whose newest request has left: they hold nothing that still counts.
  function sweep(t: number): void {
    for (const [id, w] of windows) {
      if (w.stamps.length === w.head || w.stamps[w.stamps.length - 1]! <= t - windowMs) windows.delete(id);
    }
    nextSweep = t + windowMs;
  }

  function check(key: string, scope: string, limit: number): LimitResult {
    const t = now();
    if (t >= nextSweep) sweep(t);
    const id = `${scope}\u0000${key}`;
    let w = windows.get(id);
    if (w === undefined) {
      w = { stamps: [], head: 0 };
      windows.set(id, w);
    }
    while (w.head < w.stamps.length && w.stamps[w.head]! <= t - windowMs) w.head++;
    if (w.head > 64 && w.head * 2 > w.stamps.length) {
      w.stamps = w.stamps.slice(w.head);
      w.head = 0;
    }
    const counted = w.stamps.length - w.head;
    const success = counted < limit;
    if (success) w.stamps.push(t);
    const oldest = w.head < w.stamps.length ? w.stamps[w.head]! : undefined;
    const reset = oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + windowMs - t) / 1000));
    return { success, limit, remaining: Math.max(0, limit - (counted + (success ? 1 : 0))), reset };
  }

  return {
    check,
    get size() {
      return windows.size;
    },
    get stamps() {
      let n = 0;
      for (const w of windows.values()) n += w.stamps.length;
      return n;
    },
  };
}
