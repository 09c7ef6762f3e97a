/**
 * The sign-in throttle's policy, held by both implementations alike: in process, and on a real
 * redis-server (the one processes and VMs share).
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import {
  createSignInThrottle,
  FAILURES_PER_USERNAME,
  SIGN_IN_WINDOW_MS,
  type SignInThrottle,
  type ThrottleVerdict,
  USERNAME_WINDOW_MS,
} from "../src/dashboard/sign-in-throttle.ts";
import { createRedisSignInThrottle } from "../src/dashboard/redis-sign-in-throttle.ts";
import { REDIS_SKIP, startRedis } from "./redis-helpers.ts";

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const allowed = (v: ThrottleVerdict) => v.allowed;

type Make = (t: TestContext, now: () => number) => Promise<SignInThrottle>;

const IMPLEMENTATIONS: [string, Make, string | false][] = [
  ["in process", (_t, now) => Promise.resolve(createSignInThrottle({ now })), false],
  [
    "on Redis",
    async (t, now) => {
      const server = await startRedis(t);
      const redis = new Redis(server.url, { maxRetriesPerRequest: 1, disconnectTimeout: 200 });
      t.after(() => redis.disconnect());
      return createRedisSignInThrottle(redis, { now });
    },
    REDIS_SKIP,
  ],
];

for (const [name, make, skip] of IMPLEMENTATIONS) {
  test(
    `${name}: an attempt counts before it is checked: of a burst of 50, only 5 go ahead`,
    { skip },
    async (t) => {
      const throttle = await make(t, clock().now);
      // None of them has been checked yet (they are all in flight): still only 5 may be.
      const verdicts = await Promise.all(Array.from({ length: 50 }, () => throttle.begin("ana", "10.0.0.1")));
      assert.equal(verdicts.filter(allowed).length, 5);
      assert.deepEqual(verdicts[5], { allowed: false, retryAfter: SIGN_IN_WINDOW_MS / 1000 });
    },
  );

  test(
    `${name}: a right password gives its place back and clears that address's slips`,
    { skip },
    async (t) => {
      const c = clock();
      const throttle = await make(t, c.now);
      for (let i = 0; i < 4; i++) assert.ok(allowed(await throttle.begin("ana", "10.0.0.1")));
      const right = await throttle.begin("ana", "10.0.0.1");
      assert.ok(right.allowed);
      await throttle.succeeded(right.attempt);
      for (let i = 0; i < 5; i++) assert.ok(allowed(await throttle.begin("ana", "10.0.0.1")), `attempt ${i}`);
      assert.equal((await throttle.begin("ana", "10.0.0.1")).allowed, false);
    },
  );

  test(
    `${name}: an attacker's guesses lock out their own address for that name, never the owner's`,
    { skip },
    async (t) => {
      const c = clock();
      const throttle = await make(t, c.now);
      for (let i = 0; i < 5; i++) await throttle.begin("ana", "203.0.113.7");
      assert.deepEqual(await throttle.begin("ana", "203.0.113.7"), { allowed: false, retryAfter: 900 });
      const owner = await throttle.begin("ana", "198.51.100.2");
      assert.ok(owner.allowed, "the owner, from elsewhere, signs in");
      assert.ok(allowed(await throttle.begin("bob", "203.0.113.7")), "other names from the address go on");
      c.advance(SIGN_IN_WINDOW_MS + 1);
      assert.ok(allowed(await throttle.begin("ana", "203.0.113.7")), "the window passed");
    },
  );

  test(`${name}: 20 failures from one address block it for every username`, { skip }, async (t) => {
    const throttle = await make(t, clock().now);
    for (let i = 0; i < 20; i++) assert.ok(allowed(await throttle.begin(`user${i}`, "10.0.0.9")));
    assert.deepEqual(await throttle.begin("fresh", "10.0.0.9"), { allowed: false, retryAfter: 900 });
    assert.ok(allowed(await throttle.begin("fresh", "10.0.0.10")));
  });

  test(
    `${name}: guesses for one name spread over many addresses meet the slower bound of 100 an hour`,
    { skip },
    async (t) => {
      const c = clock();
      const throttle = await make(t, c.now);
      for (let i = 0; i < FAILURES_PER_USERNAME; i++) {
        assert.ok(allowed(await throttle.begin("ana", `10.${Math.floor(i / 5)}.0.${i % 5}`)), `guess ${i}`);
        c.advance(1000);
      }
      const blocked = await throttle.begin("ana", "198.51.100.2");
      assert.equal(blocked.allowed, false);
      assert.equal(!blocked.allowed && blocked.retryAfter, (USERNAME_WINDOW_MS - 100_000) / 1000);
      c.advance(USERNAME_WINDOW_MS);
      assert.ok(allowed(await throttle.begin("ana", "198.51.100.2")));
    },
  );

  test(`${name}: memory is bounded: entries that left their window are forgotten`, { skip }, async (t) => {
    const c = clock();
    const throttle = await make(t, c.now);
    for (let i = 0; i < 100; i++) await throttle.begin(`user${i}`, `10.0.${i}.1`);
    c.advance(USERNAME_WINDOW_MS + 1);
    await throttle.begin("x", "10.9.9.9"); // sweeps
    assert.ok(allowed(await throttle.begin("user1", "10.0.1.1")));
  });
}
