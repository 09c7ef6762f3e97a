/**
 * The limiter every process shares through Redis, with the failure policy of `REDIS_FAILURE`
 * (docs/operations.md: "Running on more than one core or VM"): while Redis is unreachable or slower than the
 * connection's 100 ms bound, `closed` (the default) answers 503 `Service temporarily unavailable.`
 * with `Retry-After`, never a 500 or a hang; `open` falls back to this process's own limiter,
 * logging the switch each way. Either way the service returns to Redis by itself when it is back.
 */
import type { RedisConnection } from "../shared/redis-connection.ts";
import type { Limiter, LimitResult, LocalLimiter } from "./limiter.ts";
import { createRedisLimiter } from "./redis-limiter.ts";

/** A limiter on `connection`, falling back to `local` under `open`. */
export function createSharedLimiter(options: {
  connection: RedisConnection;
  failure: "closed" | "open";
  local: LocalLimiter;
  log: (line: string) => void;
  /** The error a request meets under `closed` while Redis is away (the HTTP layer's 503). */
  unavailable: () => Error;
  now?: () => number;
}): Limiter {
  const { connection, failure, local, log, unavailable } = options;
  const shared = createRedisLimiter(connection.client, { now: options.now });
  let fallingBack = false;
  const fallback = (key: string, scope: string, limit: number, why: string): LimitResult => {
    if (failure === "closed") throw unavailable();
    if (!fallingBack)
      log(`REDIS_FAILURE=open: limiting in this process alone while Redis is unreachable (${why})`);
    fallingBack = true;
    return local.check(key, scope, limit);
  };
  return {
    check(key, scope, limit) {
      if (!connection.up) return fallback(key, scope, limit, "not connected");
      return shared.check(key, scope, limit).then(
        (result) => {
          if (fallingBack) log("Limits are shared through Redis again");
          fallingBack = false;
          return result;
        },
        (error: unknown) => fallback(key, scope, limit, (error as Error).message),
      );
    },
  };
}
