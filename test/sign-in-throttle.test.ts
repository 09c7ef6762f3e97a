import { test } from "node:test";
import assert from "node:assert/strict";
import { createSignInThrottle, SIGN_IN_WINDOW_MS } from "../src/dashboard/sign-in-throttle.ts";

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

test("the sixth attempt for a username after 5 failures in 15 minutes waits until the oldest leaves", () => {
  const c = clock();
  const throttle = createSignInThrottle({ now: c.now });
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(throttle.check("ana", "10.0.0.1"), { allowed: true });
    throttle.fail("ana", "10.0.0.1");
    c.advance(60_000);
  }
  assert.deepEqual(
    throttle.check("ana", "10.0.0.2"),
    { allowed: false, retryAfter: 600 },
    "from any address",
  );
  assert.deepEqual(
    throttle.check("bob", "10.0.0.1"),
    { allowed: true },
    "other names from the address are fine",
  );
  c.advance(600_000);
  assert.deepEqual(throttle.check("ana", "10.0.0.1"), { allowed: true }, "one failure left the window");
  throttle.fail("ana", "10.0.0.1");
  assert.equal(throttle.check("ana", "10.0.0.1").allowed, false);
});

test("20 failures from one address block it for every username; success clears only the username", () => {
  const c = clock();
  const throttle = createSignInThrottle({ now: c.now });
  for (let i = 0; i < 20; i++) throttle.fail(`user${i}`, "10.0.0.9");
  const verdict = throttle.check("fresh", "10.0.0.9");
  assert.deepEqual(verdict, { allowed: false, retryAfter: SIGN_IN_WINDOW_MS / 1000 });
  for (let i = 0; i < 4; i++) throttle.fail("ana", "10.0.0.1");
  throttle.succeed("ana");
  throttle.fail("ana", "10.0.0.1");
  assert.equal(throttle.check("ana", "10.0.0.1").allowed, true, "the success reset ana's count");
});

test("memory is bounded: entries that left the window are forgotten, and each holds at most its limit", () => {
  const c = clock();
  const throttle = createSignInThrottle({ now: c.now });
  for (let i = 0; i < 100; i++) throttle.fail("ana", `10.0.${i}.1`);
  assert.deepEqual(throttle.check("ana", "10.9.9.9"), {
    allowed: false,
    retryAfter: SIGN_IN_WINDOW_MS / 1000,
  });
  c.advance(SIGN_IN_WINDOW_MS + 1);
  assert.deepEqual(throttle.check("ana", "10.9.9.9"), { allowed: true });
});
