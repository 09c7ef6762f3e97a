/**
 * `src/http/key-guard.ts`: 401 before any count, then the key's window in the route's scope, the
 * RateLimit fields on every answer, and the same behaviour with a limiter that answers later
 * (a shared one) as with this process's own.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { createKeyGuard, throttledDetail } from "../src/http/key-guard.ts";
import { HttpError } from "../src/http/http-error.ts";
import { Reply } from "../src/http/reply.ts";
import type { RequestContext, Route } from "../src/http/router.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { createKeyRegistry } from "../src/keys/key-registry.ts";
import { createLimiter, type Limiter } from "../src/limits/limiter.ts";
import { createRequestCounter } from "../src/usage/request-counts.ts";
import { tempDir } from "./helpers.ts";

const ROUTE: Route = { path: "/x", methods: ["GET"], scope: "features", handler: () => {} };

async function call(guard: ReturnType<typeof createKeyGuard>, key: string | undefined) {
  const req = { headers: key === undefined ? {} : { "x-api-key": key } } as unknown as IncomingMessage;
  // The guard only collects headers on the reply; nothing is written.
  const reply = new Reply();
  const ctx: RequestContext = {
    path: "/x",
    search: "",
    url: new URL("http://localhost/x"),
    requestId: "r",
    keyPrefix: null,
    call: () => Promise.reject(new Error("no in-process calls here")),
  };
  return { outcome: await guard.check(req, reply, ROUTE, ctx), reply, ctx };
}

function setup(t: Parameters<typeof tempDir>[0], limiter: Limiter) {
  // After hooks run in the order they are added: this one, added before the directory's removal,
  // writes the key's last use (queued for the next turn) while the directory is still there.
  let close = async () => {};
  t.after(() => close());
  const dir = tempDir(t);
  const { key } = createKey(dir, { name: "k", account: "a" });
  const counter = createRequestCounter({ dir });
  const registry = createKeyRegistry({ dir });
  close = async () => {
    await registry.flushUsage();
    counter.close();
  };
  const guard = createKeyGuard({
    registry,
    limiter,
    defaults: { features: 2, normalized_data: 10, metadata: 60 },
    counter,
  });
  return { key, guard, counter };
}

test("no key or a wrong one is a 401 with the challenge, and is never counted", async (t) => {
  const { guard, counter } = setup(t, createLimiter());
  for (const [key, detail] of [
    [undefined, "Authentication credentials were not provided."],
    ["gds_nope", "Invalid API key."],
  ] as const) {
    const { outcome } = await call(guard, key);
    assert.ok(
      outcome instanceof HttpError &&
        outcome.status === 401 &&
        outcome.detail === detail &&
        outcome.headers["WWW-Authenticate"] === "X-API-KEY",
      "answered, not thrown",
    );
  }
  assert.equal(counter.allowedByKey([new Date().toISOString().slice(0, 10)]).size, 0);
});

test("a key within its limit passes with the RateLimit fields; over it, a 429 with Retry-After", async (t) => {
  const { key, guard } = setup(t, createLimiter());
  const first = await call(guard, key);
  assert.equal(first.outcome, undefined);
  assert.equal(first.reply.collected("RateLimit-Policy"), '"features";q=2;w=60');
  assert.equal(first.reply.collected("RateLimit"), '"features";r=1;t=60');
  assert.match(first.ctx.keyPrefix ?? "", /^gds_/);
  assert.equal(first.ctx.limitFor?.("normalized_data"), 10);
  await call(guard, key);
  const { outcome } = await call(guard, key);
  assert.ok(
    outcome instanceof HttpError &&
      outcome.status === 429 &&
      outcome.headers["Retry-After"] === "60" &&
      outcome.detail === throttledDetail(60),
    "answered, not thrown",
  );
  assert.equal(throttledDetail(1), "Request was throttled. Expected available in 1 second.");
});

test("with a limiter that answers later, the guard answers later, with the same outcomes", async (t) => {
  const local = createLimiter();
  const later: Limiter = { check: (...args) => Promise.resolve(local.check(...args)) };
  const { key, guard } = setup(t, later);
  const first = await call(guard, key);
  assert.equal(first.outcome, undefined);
  assert.equal(first.reply.collected("RateLimit"), '"features";r=1;t=60');
  assert.equal((await call(guard, key)).outcome, undefined);
  const refused = (await call(guard, key)).outcome;
  assert.ok(refused instanceof HttpError && refused.status === 429);
});
