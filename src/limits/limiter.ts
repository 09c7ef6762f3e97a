/**
 * A rolling-window limiter: a request is allowed when fewer than `limit` requests were allowed
 * for the same key and scope in the last 60 seconds. A request may cost more than one (a long
 * range: docs/api.md, "Whole histories"): it is allowed when its whole cost fits, and counts as that
 * many. A refused request is not counted. It keeps
 * at most one entry per key, scope and millisecond (and never more than `limit`), and forgets keys
 * that went idle. The clock is
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
  /** Counts a request costing `cost` (1 by default, at most `limit`) if it fits in the window. */
  check(key: string, scope: string, limit: number, cost?: number): LimitResult | Promise<LimitResult>;
}

/** The limiter of this process, which answers at once. */
export interface LocalLimiter extends Limiter {
  check(key: string, scope: string, limit: number, cost?: number): LimitResult;
  /** How many key-and-scope windows are held, for memory checks. */
  readonly size: number;
  /** How many distinct request times (milliseconds) are held in all, for memory checks. */
  readonly stamps: number;
}

// One key's window in one scope: the allowed requests' times in a ring, oldest first, one entry
// per distinct millisecond with its count (so a busy key with a high limit holds at most one entry
// per millisecond of the window, not one per request), and their total.
class Window {
  times = new Float64Array(4);
  counts = new Uint32Array(4);
  head = 0;
  size = 0;
  total = 0;

  /** Drops the entries at or before `cutoff`. */
  expire(cutoff: number): void {
    while (this.size > 0 && this.times[this.head]! <= cutoff) {
      this.total -= this.counts[this.head]!;
      this.head = (this.head + 1) % this.times.length;
      this.size--;
    }
  }

  /** Counts `cost` requests at `t` (a clock that stepped back counts them with the newest entry). */
  add(t: number, cost: number): void {
    this.total += cost;
    if (this.size > 0) {
      const last = (this.head + this.size - 1) % this.times.length;
      if (t <= this.times[last]!) {
        this.counts[last]! += cost;
        return;
      }
    }
    if (this.size === this.times.length) this.grow();
    const at = (this.head + this.size) % this.times.length;
    this.times[at] = t;
    this.counts[at] = cost;
    this.size++;
  }

  /** The oldest counted request's time, if any. */
  oldest(): number | undefined {
    return this.size > 0 ? this.times[this.head] : undefined;
  }

  newest(): number {
    return this.times[(this.head + this.size - 1) % this.times.length]!;
  }

  // Twice the room, the entries moved to the start in order.
  private grow(): void {
    const times = new Float64Array(this.times.length * 2);
    const counts = new Uint32Array(this.times.length * 2);
    for (let i = 0; i < this.size; i++) {
      const from = (this.head + i) % this.times.length;
      times[i] = this.times[from]!;
      counts[i] = this.counts[from]!;
    }
    this.times = times;
    this.counts = counts;
    this.head = 0;
  }
}

/** A limiter over `windowMs` (60 s by default) on the clock `now`. */
export function createLimiter(options: { now?: () => number; windowMs?: number } = {}): LocalLimiter {
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? WINDOW_MS;
  // Windows by scope, then by the caller's key id.
  const windows = new Map<string, Map<string, Window>>();
  let nextSweep = now() + windowMs;

  // Forget windows whose newest request has left: they hold nothing that still counts.
  function sweep(t: number): void {
    for (const [scope, byKey] of windows) {
      for (const [key, w] of byKey) if (w.size === 0 || w.newest() <= t - windowMs) byKey.delete(key);
      if (byKey.size === 0) windows.delete(scope);
    }
    nextSweep = t + windowMs;
  }

  function check(key: string, scope: string, limit: number, cost = 1): LimitResult {
    const t = now();
    if (t >= nextSweep) sweep(t);
    let byKey = windows.get(scope);
    if (byKey === undefined) {
      byKey = new Map();
      windows.set(scope, byKey);
    }
    let w = byKey.get(key);
    if (w === undefined) {
      w = new Window();
      byKey.set(key, w);
    }
    w.expire(t - windowMs);
    const counted = w.total;
    const success = counted + cost <= limit;
    if (success) w.add(t, cost);
    const oldest = w.oldest();
    const reset = oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + windowMs - t) / 1000));
    const remaining = Math.max(0, limit - (counted + (success ? cost : 0)));
    return { success, limit, remaining, reset };
  }

  return {
    check,
    get size() {
      let n = 0;
      for (const byKey of windows.values()) n += byKey.size;
      return n;
    },
    get stamps() {
      let n = 0;
      for (const byKey of windows.values()) for (const w of byKey.values()) n += w.size;
      return n;
    },
  };
}
