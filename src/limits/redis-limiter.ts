/**
 * The rolling-window limiter of `limiter.ts` on Redis, shared by every process and VM that uses
 * the same Redis. Like the in-process limiter, it keeps one entry per key, scope and millisecond
 * with its count, never one per request: a sorted set of the milliseconds that had counted
 * requests and a hash of their counts and total. So a key with a high limit holds at most one
 * entry per millisecond of the window (60,000), however many requests it makes. One Lua script
 * (atomic in Redis) drops the entries older than the window, counts, and adds this request only
 * when it is allowed. Same semantics as the in-process limiter: a refused request is not counted,
 * `reset` is the whole seconds until the oldest counted request leaves. The clock is the caller's
 * (tests inject one), so the VMs' clocks must agree (NTP), as for any log.
 */
import type { Redis } from "ioredis";
import type { LimitResult } from "./limiter.ts";
import { WINDOW_MS } from "./scopes.ts";

// KEYS[1]: the window's milliseconds (sorted set: member and score the millisecond); KEYS[2]: their
// counts, and the total under "n" (hash). ARGV: now (ms), window (ms), limit, cost.
// Returns {allowed (0/1), counted after this request, oldest counted time or -1}.
// Expired milliseconds are read in chunks: Lua's unpack takes a few thousand values at most.
const SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - window)
if #expired > 0 then
  local gone = 0
  for first = 1, #expired, 1000 do
    local chunk = {}
    for i = first, math.min(first + 999, #expired) do chunk[#chunk + 1] = expired[i] end
    for _, count in ipairs(redis.call('HMGET', KEYS[2], unpack(chunk))) do gone = gone + (tonumber(count) or 0) end
    redis.call('HDEL', KEYS[2], unpack(chunk))
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  redis.call('HINCRBY', KEYS[2], 'n', -gone)
end
local counted = tonumber(redis.call('HGET', KEYS[2], 'n') or '0')
local allowed = 0
if counted + cost <= limit then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  redis.call('HINCRBY', KEYS[2], ARGV[1], cost)
  redis.call('HINCRBY', KEYS[2], 'n', cost)
  counted = counted + cost
  allowed = 1
end
if counted > 0 then
  redis.call('PEXPIRE', KEYS[1], window)
  redis.call('PEXPIRE', KEYS[2], window)
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then return {allowed, counted, tonumber(oldest[2])} end
return {allowed, counted, -1}
`;

type Scripted = Redis & {
  gdsWindow(
    times: string,
    counts: string,
    now: number,
    window: number,
    limit: number,
    cost: number,
  ): Promise<[number, number, number]>;
};

/**
 * The Redis keys of one key's window in one scope. The braces put both in one hash slot (Redis
 * Cluster runs a script only over keys of one slot); the names differ from the earlier one-member-
 * per-request sets (`rl:<scope>:<key>`), which expire by themselves within a minute of an upgrade.
 */
export function windowKeys(scope: string, key: string): { times: string; counts: string } {
  return { times: `rl:{${scope}:${key}}:t`, counts: `rl:{${scope}:${key}}:n` };
}

/** An asynchronous limiter on `redis`. */
export function createRedisLimiter(redis: Redis, options: { now?: () => number; windowMs?: number } = {}) {
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? WINDOW_MS;
  redis.defineCommand("gdsWindow", { numberOfKeys: 2, lua: SCRIPT });
  const scripted = redis as Scripted;
  return {
    async check(key: string, scope: string, limit: number, cost = 1): Promise<LimitResult> {
      const t = now();
      const { times, counts } = windowKeys(scope, key);
      const [allowed, counted, oldest] = await scripted.gdsWindow(times, counts, t, windowMs, limit, cost);
      const reset = oldest < 0 ? 0 : Math.max(1, Math.ceil((oldest + windowMs - t) / 1000));
      const remaining = Math.max(0, limit - counted);
      return { success: allowed === 1, limit, remaining, reset };
    },
  };
}
