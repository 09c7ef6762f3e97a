/**
 * The rolling-window limiter of `limiter.ts` on Redis, shared by every process and VM that uses
 * the same Redis: one sorted set per key and scope holds the times of the counted requests, and
 * one Lua script (atomic in Redis) drops those older than the window, counts, and adds this
 * request only when it is allowed. Same semantics as the in-process limiter: a refused request is
 * not counted, `reset` is the whole seconds until the oldest counted request leaves. The clock is
 * the caller's (tests inject one), so the VMs' clocks must agree (NTP), as for any log.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { LimitResult } from "./limiter.ts";
import { WINDOW_MS } from "./scopes.ts";

// KEYS[1]: the window's sorted set. ARGV: now (ms), window (ms), limit, a unique member.
// Returns {allowed (0/1), counted after this request, oldest counted time or -1}.
const SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local counted = redis.call('ZCARD', KEYS[1])
local allowed = 0
if counted < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  counted = counted + 1
  allowed = 1
end
if counted > 0 then redis.call('PEXPIRE', KEYS[1], window) end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then return {allowed, counted, tonumber(oldest[2])} end
return {allowed, counted, -1}
`;

type Scripted = Redis & {
  gdsLimit(
    key: string,
    now: number,
    window: number,
    limit: number,
    member: string,
  ): Promise<[number, number, number]>;
};

/** An asynchronous limiter on `redis`. */
export function createRedisLimiter(redis: Redis, options: { now?: () => number; windowMs?: number } = {}) {
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? WINDOW_MS;
  redis.defineCommand("gdsLimit", { numberOfKeys: 1, lua: SCRIPT });
  const scripted = redis as Scripted;
  // Members must differ even for two requests in the same millisecond, across processes.
  const stem = randomBytes(6).toString("hex");
  let sequence = 0;
  return {
    async check(key: string, scope: string, limit: number): Promise<LimitResult> {
      const t = now();
      const [allowed, counted, oldest] = await scripted.gdsLimit(
        `rl:${scope}:${key}`,
        t,
        windowMs,
        limit,
        `${t}-${stem}-${(++sequence).toString(36)}`,
      );
      const reset = oldest < 0 ? 0 : Math.max(1, Math.ceil((oldest + windowMs - t) / 1000));
      return { success: allowed === 1, limit, remaining: Math.max(0, limit - counted), reset };
    },
  };
}
