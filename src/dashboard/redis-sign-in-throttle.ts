/**
 * The sign-in throttle of `sign-in-throttle.ts` on Redis, so that the limits hold across every
 * process and VM (with WORKERS or several VMs, each process would otherwise allow its own five
 * guesses). One Lua script, atomic in Redis, drops what left each bound's window, refuses when a
 * bound is full, and else takes the attempt's place in all three; another gives a right password's
 * place back. Each bound is a sorted set of attempt ids scored by time. The keys share one hash
 * slot (`{signin}`), so the scripts also run on Redis Cluster. The clock is the caller's.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { type Attempt, boundKey, SIGN_IN_BOUNDS, type SignInThrottle } from "./sign-in-throttle.ts";
import { unlessAway } from "../shared/shared-state-unavailable.ts";

// KEYS: one sorted set per bound. ARGV: now, id, then a window and a limit per bound.
// Returns the whole seconds to wait (0 when the attempt took its place).
const BEGIN = `
local now = tonumber(ARGV[1])
local wait = 0
for i = 1, #KEYS do
  local window = tonumber(ARGV[1 + 2 * i])
  local limit = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  local count = redis.call('ZCARD', KEYS[i])
  if count >= limit then
    local oldest = redis.call('ZRANGE', KEYS[i], count - limit, count - limit, 'WITHSCORES')
    local seconds = math.ceil((tonumber(oldest[2]) + window - now) / 1000)
    if seconds < 1 then seconds = 1 end
    if seconds > wait then wait = seconds end
  end
end
if wait > 0 then return wait end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1 + 2 * i]))
end
return 0
`;

// KEYS: the bounds' sets, the pair's first. ARGV: the attempt's id.
const SUCCEEDED = `
for i = 2, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('DEL', KEYS[1])
return 1
`;

type Scripted = Redis & {
  gdsSignInBegin(...args: (string | number)[]): Promise<number>;
  gdsSignInSucceeded(...args: string[]): Promise<number>;
};

// The Redis keys of an attempt's bounds: names hashed (a username is up to 200 characters).
function keysOf(a: Pick<Attempt, "username" | "address">): string[] {
  return SIGN_IN_BOUNDS.map(({ name }) => {
    const id = createHash("sha256").update(boundKey(name, a)).digest("base64url").slice(0, 22);
    return `si:{signin}:${name}:${id}`;
  });
}

/** A throttle whose counts every process sharing `redis` sees. */
export function createRedisSignInThrottle(
  redis: Redis,
  options: { now?: () => number } = {},
): SignInThrottle {
  const now = options.now ?? Date.now;
  redis.defineCommand("gdsSignInBegin", { numberOfKeys: SIGN_IN_BOUNDS.length, lua: BEGIN });
  redis.defineCommand("gdsSignInSucceeded", { numberOfKeys: SIGN_IN_BOUNDS.length, lua: SUCCEEDED });
  const scripted = redis as Scripted;
  const bounds = SIGN_IN_BOUNDS.flatMap(({ window, limit }) => [window, limit]);
  return {
    async begin(username, address) {
      const attempt: Attempt = { username, address, at: now(), id: randomBytes(12).toString("base64url") };
      // While Redis is away no attempt can be counted, so none is let through: a 503 to retry.
      const wait = await unlessAway(
        scripted.gdsSignInBegin(...keysOf(attempt), attempt.at, attempt.id, ...bounds),
      );
      return wait === 0 ? { allowed: true, attempt } : { allowed: false, retryAfter: wait };
    },
    async succeeded(attempt) {
      await unlessAway(scripted.gdsSignInSucceeded(...keysOf(attempt), attempt.id));
    },
  };
}
