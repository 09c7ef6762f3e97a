/**
 * `src/limits/redis-limiter.ts` against a real redis-server: the same answers as the in-process
 * limiter for a random stream of requests, and memory bounded like it: one entry per key, scope
 * and millisecond, however many requests a key with a high limit makes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { createLimiter } from "../src/limits/limiter.ts";
import { createRedisLimiter, windowKeys } from "../src/limits/redis-limiter.ts";
import { REDIS_SKIP, startRedis } from "./redis-helpers.ts";

async function client(t: test.TestContext): Promise<Redis> {
  const server = await startRedis(t);
  const redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1, disconnectTimeout: 200 });
  await redis.connect();
  t.after(() => redis.disconnect());
  return redis;
}

interface Drawn {
  readonly advanceMs: number;
  readonly key: string;
  readonly scope: string;
  readonly limit: number;
  readonly cost?: number;
}

/** Sends `count` requests drawn from a seeded stream to both limiters; each answer must agree. */
async function agreeOnStream(
  t: test.TestContext,
  seed: number,
  count: number,
  draw: (random: () => number) => Drawn,
) {
  const redis = await client(t);
  let now = 1_700_000_000_000;
  const clock = () => now;
  const shared = createRedisLimiter(redis, { now: clock, windowMs: 2_000 });
  const local = createLimiter({ now: clock, windowMs: 2_000 });
  let state = seed;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < count; i++) {
    const { advanceMs, key, scope, limit, cost } = draw(random);
    now += advanceMs;
    assert.deepEqual(
      await shared.check(key, scope, limit, cost),
      local.check(key, scope, limit, cost),
      `request ${i}`,
    );
  }
}

test("answers as the in-process limiter does, for a random stream of requests", { skip: REDIS_SKIP }, (t) =>
  agreeOnStream(t, 7, 3_000, (random) => ({
    advanceMs: Math.floor(random() * random() * 120),
    key: `k${Math.floor(random() * 3)}`,
    scope: random() < 0.5 ? "a" : "b",
    limit: [0, 1, 5, 40][Math.floor(random() * 4)]!,
  })),
);

test(
  "a key with a huge limit holds one entry per millisecond, and its window empties in time",
  { skip: REDIS_SKIP },
  async (t) => {
    const redis = await client(t);
    let now = 1_700_000_000_000;
    const limiter = createRedisLimiter(redis, { now: () => now, windowMs: 60_000 });
    const { times, counts } = windowKeys("s", "busy");
    for (let ms = 0; ms < 5; ms++) {
      await Promise.all(Array.from({ length: 400 }, () => limiter.check("busy", "s", 1e8)));
      now += 1;
    }
    assert.equal(await redis.zcard(times), 5, "five milliseconds, not 2,000 requests");
    assert.equal(await redis.hget(counts, "n"), "2000");
    assert.equal((await limiter.check("busy", "s", 1e8)).remaining, 1e8 - 2001);
    // 3,000 more milliseconds, then all of them expire in one call (more than one chunk of 1,000).
    for (let ms = 0; ms < 3_000; ms++, now++) await limiter.check("busy", "s", 1e8);
    assert.equal(
      await redis.zcard(times),
      3_005,
      "the last check shares a millisecond with the first of these",
    );
    now += 60_001;
    const after = await limiter.check("busy", "s", 1e8);
    assert.deepEqual(after, { success: true, limit: 1e8, remaining: 1e8 - 1, reset: 60 });
    assert.equal(await redis.zcard(times), 1);
    assert.equal(await redis.hlen(counts), 2, "the one millisecond and the total");
    assert.ok((await redis.pttl(times)) > 0 && (await redis.pttl(counts)) > 0, "both keys expire when idle");
  },
);

test(
  "answers as the in-process limiter does for requests of several costs (long ranges)",
  { skip: REDIS_SKIP },
  (t) =>
    agreeOnStream(t, 11, 2_000, (random) => {
      const advanceMs = Math.floor(random() * random() * 150);
      const key = `k${Math.floor(random() * 2)}`;
      const limit = [1, 5, 40][Math.floor(random() * 3)]!;
      return { advanceMs, key, scope: "s", limit, cost: Math.min(limit, 1 + Math.floor(random() * 6)) };
    }),
);
