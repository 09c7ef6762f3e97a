import { test } from "node:test";
import assert from "node:assert/strict";
import { createLimiter } from "../src/limits/limiter.ts";
import { configuredLimits, DEFAULT_LIMITS, parseLimitAssignments } from "../src/limits/scopes.ts";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

test("limiter refuses the 11th request inside 60 s and says when a slot frees", () => {
  const c = clock();
  const limiter = createLimiter({ now: c.now });
  for (let i = 0; i < 10; i++) {
    const r = limiter.check("k", "normalized_data", 10);
    assert.equal(r.success, true);
    assert.equal(r.remaining, 9 - i);
    c.advance(1_000);
  }
  // Now t = start + 10 s; the oldest counted request was at start and leaves at start + 60 s.
  const refused = limiter.check("k", "normalized_data", 10);
  assert.deepEqual(refused, { success: false, limit: 10, remaining: 0, reset: 50 });
  c.advance(49_500);
  assert.equal(limiter.check("k", "normalized_data", 10).reset, 1, "half a second rounds up to 1");
  c.advance(500);
  assert.equal(
    limiter.check("k", "normalized_data", 10).success,
    true,
    "at exactly 60 s the oldest has left",
  );
});

test("limiter refuses the 4th request in features", () => {
  const c = clock();
  const limiter = createLimiter({ now: c.now });
  for (let i = 0; i < 3; i++)
    assert.equal(limiter.check("k", "features", DEFAULT_LIMITS.features).success, true);
  c.advance(2_300);
  const r = limiter.check("k", "features", DEFAULT_LIMITS.features);
  assert.equal(r.success, false);
  assert.equal(r.reset, 58); // 57.7 s, rounded up
});

test("a refused request is not counted", () => {
  const c = clock();
  const limiter = createLimiter({ now: c.now });
  limiter.check("k", "s", 1);
  for (let i = 0; i < 5; i++) {
    c.advance(10_000);
    assert.equal(limiter.check("k", "s", 1).success, false);
  }
  c.advance(10_000); // 60 s after the only counted request
  assert.equal(limiter.check("k", "s", 1).success, true);
});

test("keys and scopes have separate windows", () => {
  const limiter = createLimiter({ now: () => 0 });
  assert.equal(limiter.check("a", "s", 1).success, true);
  assert.equal(limiter.check("a", "s", 1).success, false);
  assert.equal(limiter.check("b", "s", 1).success, true);
  assert.equal(limiter.check("a", "t", 1).success, true);
});

test("the window rolls: it is not a fixed minute", () => {
  const c = clock();
  const limiter = createLimiter({ now: c.now });
  limiter.check("k", "s", 2); // t = 0
  c.advance(40_000);
  limiter.check("k", "s", 2); // t = 40
  c.advance(30_000); // t = 70: the first left, the second still counts
  const r = limiter.check("k", "s", 2);
  assert.equal(r.success, true);
  assert.equal(r.remaining, 0);
  assert.equal(r.reset, 30); // the t = 40 request leaves at t = 100
  assert.equal(limiter.check("k", "s", 2).success, false);
});

test("memory stays bounded: at most limit stamps, idle keys forgotten", () => {
  const c = clock();
  const limiter = createLimiter({ now: c.now });
  for (let k = 0; k < 1_000; k++) limiter.check(`key${k}`, "s", 5);
  assert.equal(limiter.size, 1_000);
  c.advance(61_000);
  limiter.check("fresh", "s", 5);
  assert.equal(limiter.size, 1, "windows whose requests all left are dropped");
  // A key hammering far past its limit still holds only its allowed requests' times.
  for (let i = 0; i < 10_000; i++) {
    limiter.check("busy", "s", 3);
    c.advance(1);
  }
  const r = limiter.check("busy", "s", 3);
  assert.equal(r.remaining, 0);
  assert.equal(r.success, false);
  assert.equal(limiter.stamps, 1 + 3);
});

test("a key with a huge limit holds one entry per millisecond, however many requests it makes", () => {
  const c = clock();
  const limiter = createLimiter({ now: c.now });
  for (let ms = 0; ms < 2_000; ms++) {
    for (let i = 0; i < 50; i++) limiter.check("busy", "s", 1e9);
    c.advance(1);
  }
  assert.equal(limiter.stamps, 2_000);
  const r = limiter.check("busy", "s", 1e9);
  assert.equal(r.remaining, 1e9 - 100_001);
  assert.equal(r.reset, 58, "the oldest entry leaves 60 s after the first request");
  c.advance(58_000);
  assert.equal(
    limiter.check("busy", "s", 1e9).remaining,
    1e9 - 100_002 + 50,
    "the first millisecond's 50 left",
  );
});

test("a clock that steps back counts the request with the newest entry", () => {
  const c = clock(10_000);
  const limiter = createLimiter({ now: c.now });
  limiter.check("k", "s", 3);
  c.advance(-5_000);
  assert.equal(limiter.check("k", "s", 3).remaining, 1);
  c.advance(65_000); // 60 s after the newest entry: both counted requests have left
  assert.equal(limiter.check("k", "s", 3).remaining, 2);
});

test("a key with a limit of 0 is always refused", () => {
  const r = createLimiter({ now: () => 5 }).check("k", "s", 0);
  assert.equal(r.success, false);
  assert.equal(r.reset, 0);
});

test("limit assignments parse, and bad ones are refused with the reason", () => {
  assert.deepEqual(parseLimitAssignments(["normalized_data=100", "features=7"]), {
    normalized_data: 100,
    features: 7,
  });
  assert.deepEqual(parseLimitAssignments(["normalized_data=100,features=0"]), {
    normalized_data: 100,
    features: 0,
  });
  assert.deepEqual(parseLimitAssignments(["features=default"], { allowDefault: true }), { features: null });
  assert.throws(() => parseLimitAssignments(["features=default"]), /needs a number/);
  assert.throws(() => parseLimitAssignments(["features=-1"]), /is not SCOPE=N/);
  assert.throws(() => parseLimitAssignments(["features=99999999999999999999"]), /too large/);
  assert.deepEqual(configuredLimits(undefined), DEFAULT_LIMITS);
  assert.deepEqual(configuredLimits("features=9"), { normalized_data: 10, features: 9, metadata: 60 });
});

test("a request costing several counts as several, and only when its whole cost fits", () => {
  let now = 0;
  const limiter = createLimiter({ now: () => now });
  assert.deepEqual(limiter.check("k", "s", 10, 4), { success: true, limit: 10, remaining: 6, reset: 60 });
  now += 1_000;
  assert.deepEqual(limiter.check("k", "s", 10, 7), { success: false, limit: 10, remaining: 6, reset: 59 });
  assert.deepEqual(limiter.check("k", "s", 10, 6), { success: true, limit: 10, remaining: 0, reset: 59 });
  assert.equal(limiter.check("k", "s", 10).success, false);
  now += 59_000; // the first four leave the window; the six of the second second stay
  assert.deepEqual(limiter.check("k", "s", 10, 4), { success: true, limit: 10, remaining: 0, reset: 1 });
});
