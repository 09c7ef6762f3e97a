/**
 * Sign-in throttling (docs/dashboard.md: "Sign-in limits"), after OWASP's authentication guidance:
 * an attempt takes its place in the count *before* its password is checked, and gives it back only
 * when the password was right, so no burst (parallel or pipelined) gets more guesses than the
 * limits. Failures are counted three ways, each over its own window:
 *
 * - per username and address: 5 in 15 minutes. An attacker's guesses from one address lock out
 *   that address for that username, not the owner signing in from elsewhere;
 * - per address: 20 in 15 minutes, whatever the usernames (one address guessing many accounts);
 * - per username alone: 100 in an hour, from every address together, the slower bound against a
 *   guesser spread over many addresses. Only such an attack can lock the owner out, and only while
 *   it lasts.
 *
 * Usernames that do not exist are counted the same way, so the throttle never tells whether one
 * exists. The clock is injected; memory is bounded by forgetting idle entries.
 */

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_USERNAME_AND_ADDRESS = 5;
export const FAILURES_PER_ADDRESS = 20;
export const USERNAME_WINDOW_MS = 60 * 60_000;
export const FAILURES_PER_USERNAME = 100;

/** An attempt that holds its place until `succeeded` gives it back. */
export interface Attempt {
  readonly username: string;
  readonly address: string;
  readonly at: number;
  /** Unique to the attempt (Redis keeps it as the member). */
  readonly id: string;
}

/** Whether an attempt may go ahead (holding its place); when not, the whole seconds until it may. */
export type ThrottleVerdict = { allowed: true; attempt: Attempt } | { allowed: false; retryAfter: number };

/** The limits, in process (`createSignInThrottle`) or shared through Redis (`redis-sign-in-throttle.ts`). */
export interface SignInThrottle {
  /** Counts an attempt as a failure before its password is checked; refused when over a limit. */
  begin(username: string, address: string): Promise<ThrottleVerdict>;
  /** The attempt's password was right: its place is given back, and the pair's failures cleared. */
  succeeded(attempt: Attempt): Promise<void>;
}

/** Each bound: how many failures, over how long, counted by what. */
export const SIGN_IN_BOUNDS = [
  { name: "pair", limit: FAILURES_PER_USERNAME_AND_ADDRESS, window: SIGN_IN_WINDOW_MS },
  { name: "address", limit: FAILURES_PER_ADDRESS, window: SIGN_IN_WINDOW_MS },
  { name: "username", limit: FAILURES_PER_USERNAME, window: USERNAME_WINDOW_MS },
] as const;

interface Bound {
  readonly counts: Map<string, Attempt[]>;
  readonly limit: number;
  readonly window: number;
  readonly key: (a: Pick<Attempt, "username" | "address">) => string;
}

/** What each bound counts by. */
export function boundKey(
  name: (typeof SIGN_IN_BOUNDS)[number]["name"],
  a: Pick<Attempt, "username" | "address">,
): string {
  return name === "pair" ? `${a.username}\u0000${a.address}` : name === "address" ? a.address : a.username;
}

function bounds(): Bound[] {
  return SIGN_IN_BOUNDS.map(({ name, limit, window }) => ({
    counts: new Map(),
    limit,
    window,
    key: (a) => boundKey(name, a),
  }));
}

// The attempts of `id` still in the window (the entry forgotten when none is).
function recent(bound: Bound, id: string, t: number): Attempt[] {
  const attempts = (bound.counts.get(id) ?? []).filter((a) => a.at > t - bound.window);
  if (attempts.length === 0) bound.counts.delete(id);
  else bound.counts.set(id, attempts);
  return attempts;
}

// Seconds until enough failures leave the window for one more attempt, or 0 when it may go ahead.
function wait(bound: Bound, attempts: readonly Attempt[], t: number): number {
  if (attempts.length < bound.limit) return 0;
  const oldest = attempts[attempts.length - bound.limit]!;
  return Math.max(1, Math.ceil((oldest.at + bound.window - t) / 1000));
}

/** A throttle on the clock `now`. */
export function createSignInThrottle(options: { now?: () => number } = {}): SignInThrottle {
  const now = options.now ?? Date.now;
  const all = bounds();
  let nextSweep = now() + USERNAME_WINDOW_MS;
  let ids = 0;
  return {
    begin(username, address) {
      const t = now();
      if (t >= nextSweep) {
        for (const bound of all) for (const id of [...bound.counts.keys()]) recent(bound, id, t);
        nextSweep = t + USERNAME_WINDOW_MS;
      }
      const attempt: Attempt = { username, address, at: t, id: String(++ids) };
      const lists = all.map((bound) => recent(bound, bound.key(attempt), t));
      const retryAfter = Math.max(...all.map((bound, i) => wait(bound, lists[i]!, t)));
      if (retryAfter > 0) return Promise.resolve({ allowed: false, retryAfter });
      all.forEach((bound, i) => {
        lists[i]!.push(attempt);
        // Only the newest `limit` decide anything: older ones are dropped.
        if (lists[i]!.length > bound.limit) lists[i]!.shift();
        bound.counts.set(bound.key(attempt), lists[i]!);
      });
      return Promise.resolve({ allowed: true, attempt });
    },
    succeeded(attempt) {
      for (const bound of all) {
        const id = bound.key(attempt);
        const left = (bound.counts.get(id) ?? []).filter((a) => a !== attempt);
        if (left.length === 0) bound.counts.delete(id);
        else bound.counts.set(id, left);
      }
      // The owner knows the password: their earlier slips from this address no longer count.
      all[0]!.counts.delete(all[0]!.key(attempt));
      return Promise.resolve();
    },
  };
}
