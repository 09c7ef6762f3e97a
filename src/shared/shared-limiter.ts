/**
 * The limiter every process shares through Redis, with the failure policy of `REDIS_FAILURE`
 * (docs/operations.md: "Running on more than one core or VM"): while Redis is unreachable or slower than the
 * connection's 100 ms bound, `closed` (the default) answers 503 `Service temporarily unavailable.`
 * with `Retry-After`, never a 500 or a hang; `open` falls back to this process's own limiter,
 * logging the switch each way. Either way the service returns to Redis by itself when it is back.
 */
import type { Limiter, LimitResult, LocalLimiter } from "../limits/limiter.ts";
import { createRedisLimiter } from "../limits/redis-limiter.ts";
import type { RedisConnection } from "./redis-connection.ts";
import { SharedStateUnavailable } from "./shared-state-unavailable.ts";

/** A limiter on `connection`, falling back to `local` under `open`. */
export function createSharedLimiter(options: {
  connection: RedisConnection;
  failure: "closed" | "open";
  local: LocalLimiter;
  log: (line: string) => void;
  now?: () => number;
}): Limiter {
  const { connection, failure, local, log } = options;
  const shared = createRedisLimiter(connection.client, { now: options.now });
  let fallingBack = false;
  const fallback = (key: string, scope: string, limit: number, cost: number, why: string): LimitResult => {
    if (failure === "closed") throw new SharedStateUnavailable(why);
    if (!fallingBack)
      log(`REDIS_FAILURE=open: limiting in this process alone while Redis is unreachable (${why})`);
    fallingBack = true;
    return local.check(key, scope, limit, cost);
  };
  return {
    async check(key, scope, limit, cost = 1) {
      if (!connection.up) return fallback(key, scope, limit, cost, "not connected");
      let result: LimitResult;
      try {
        result = await shared.check(key, scope, limit, cost);
      } catch (error) {
        return fallback(key, scope, limit, cost, (error as Error).message);
      }
      if (fallingBack) log("Limits are shared through Redis again");
      fallingBack = false;
      return result;
    },
  };
}
