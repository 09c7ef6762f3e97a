/**
 * Sign-in throttling: after 5 failed sign-ins in 15 minutes for one username, or 20 from one
 * address, every further attempt is refused until the oldest failure leaves the window, whatever
 * the password. Usernames that do not exist are counted the same way, so the throttle never tells
 * whether one exists. The clock is injected; memory is bounded by forgetting idle entries.
 */

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_USERNAME = 5;
export const FAILURES_PER_ADDRESS = 20;

/** Whether an attempt may go ahead; when not, the whole seconds until it may. */
export type ThrottleVerdict = { allowed: true } | { allowed: false; retryAfter: number };

export interface SignInThrottle {
  check(username: string, address: string): ThrottleVerdict;
  /** Counts a failed attempt against both the username and the address. */
  fail(username: string, address: string): void;
  /** A successful sign-in clears the username's failures (not the address's). */
  succeed(username: string): void;
}

/** A throttle on the clock `now`. */
export function createSignInThrottle(options: { now?: () => number } = {}): SignInThrottle {
  const now = options.now ?? Date.now;
  const byUser = new Map<string, number[]>();
  const byAddress = new Map<string, number[]>();
  let nextSweep = now() + SIGN_IN_WINDOW_MS;

  function recent(map: Map<string, number[]>, id: string, t: number): number[] {
    const stamps = (map.get(id) ?? []).filter((s) => s > t - SIGN_IN_WINDOW_MS);
    if (stamps.length === 0) map.delete(id);
    else map.set(id, stamps);
    return stamps;
  }

  function sweep(t: number): void {
    for (const map of [byUser, byAddress]) for (const id of [...map.keys()]) recent(map, id, t);
    nextSweep = t + SIGN_IN_WINDOW_MS;
  }

  // Seconds until enough failures leave the window for one more attempt.
  function wait(stamps: number[], limit: number, t: number): number {
    const oldest = stamps[stamps.length - limit]!;
    return Math.max(1, Math.ceil((oldest + SIGN_IN_WINDOW_MS - t) / 1000));
  }

  return {
    check(username, address) {
      const t = now();
      if (t >= nextSweep) sweep(t);
      const user = recent(byUser, username, t);
      const addr = recent(byAddress, address, t);
      let retryAfter = 0;
      if (user.length >= FAILURES_PER_USERNAME) retryAfter = wait(user, FAILURES_PER_USERNAME, t);
      if (addr.length >= FAILURES_PER_ADDRESS)
        retryAfter = Math.max(retryAfter, wait(addr, FAILURES_PER_ADDRESS, t));
      return retryAfter === 0 ? { allowed: true } : { allowed: false, retryAfter };
    },
    fail(username, address) {
      const t = now();
      for (const [map, id, cap] of [
        [byUser, username, FAILURES_PER_USERNAME],
        [byAddress, address, FAILURES_PER_ADDRESS],
      ] as const) {
        const stamps = recent(map, id, t);
        stamps.push(t);
        if (stamps.length > cap) stamps.shift();
        map.set(id, stamps);
      }
    },
    succeed(username) {
      byUser.delete(username);
    },
  };
}
