/**
 * The dashboard's show-once secrets in Redis (`src/dashboard/redis-reveals.ts`): taken once, only
 * by their session, sealed at rest; and a Redis that does not answer in time is the shared state
 * out of reach (a 503 to retry), never an error of the page (a 500 that loses the new key).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedisRevealStore } from "../src/dashboard/redis-reveals.ts";
import { quickAndPatient, REDIS_SKIP } from "./redis-helpers.ts";

const SESSION = "a".repeat(43);
const SECRET = "gds_" + "k".repeat(49);

test(
  "a secret is taken once, by its session only, and Redis holds it sealed",
  { skip: REDIS_SKIP },
  async (t) => {
    const { quick, patient } = await quickAndPatient(t);
    const reveals = createRedisRevealStore(quick.client);
    await reveals.put(SESSION, { kind: "key", label: "laptop", secret: SECRET });
    const held = await patient.client.keys("*reveal:*");
    assert.equal(held.length, 1);
    assert.ok(!(await patient.client.get(held[0]!.replace(/^gds:/, "")))!.includes(SECRET), "sealed at rest");
    assert.equal(await reveals.take("b".repeat(43), "key"), undefined, "another session finds nothing");
    assert.deepEqual(await reveals.take(SESSION, "key"), { kind: "key", label: "laptop", secret: SECRET });
    assert.equal(await reveals.take(SESSION, "key"), undefined, "once");
  },
);

test(
  "a Redis that does not answer in time is the shared state out of reach",
  { skip: REDIS_SKIP },
  async (t) => {
    const { quick, patient, busy } = await quickAndPatient(t);
    const reveals = createRedisRevealStore(quick.client);
    await busy();
    await assert.rejects(reveals.put(SESSION, { kind: "key", label: "laptop", secret: SECRET }), {
      name: "SharedStateUnavailable",
    });
    await patient.client.set("pause-over", "1"); // answered once the pause is over
    // The put ran after its answer was given up on: the secret is there, and taken once.
    assert.equal((await reveals.take(SESSION, "key"))?.secret, SECRET);
    assert.equal(await reveals.take(SESSION, "key"), undefined);
    await busy();
    await assert.rejects(reveals.take(SESSION, "key"), { name: "SharedStateUnavailable" });
  },
);
