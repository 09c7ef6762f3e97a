/**
 * DATA_DIR's log of ended webhook deliveries stays bounded: each subscription keeps its newest
 * KEPT_PER_SUBSCRIPTION, the counts of how deliveries ended outlive the pruning, and a flat log an
 * earlier version wrote is moved into the subscriptions' folders and read as before.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  deliveryLog,
  KEPT_PER_SUBSCRIPTION,
  PRUNE_SLACK,
  saveDelivery,
} from "../src/webhooks/delivery-log.ts";
import { type Delivery, writePending } from "../src/webhooks/outbox.ts";
import { fileOutbox } from "../src/webhooks/outbox-store.ts";
import { tempDir } from "./helpers.ts";

const A = "wh_00000000000000aa";
const B = "wh_00000000000000bb";

function delivery(subscription: string, order: number, state: Delivery["state"] = "delivered"): Delivery {
  return {
    id: `msg_${order.toString(16).padStart(32, "0")}`,
    subscription,
    event: { type: "webhook.test", timestamp: "2026-11-28T00:00:00.000Z", data: {} },
    created: "2026-11-28T00:00:00.000Z",
    order,
    next_at: "2026-11-28T00:00:00.000Z",
    state,
    attempts: [{ at: "2026-11-28T00:00:00.000Z", status: state === "gone" ? 410 : 200, ms: 5 }],
  };
}

// Ended deliveries as an earlier save left them (written directly: a thousand fsyncs would be slow).
function logged(folder: string, deliveries: Delivery[]): void {
  mkdirSync(folder, { recursive: true });
  for (const d of deliveries) writeFileSync(join(folder, `${d.id}.json`), JSON.stringify(d) + "\n");
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

test("a subscription keeps its newest ended deliveries; the counts of how they ended outlive the pruning", async (t) => {
  const dir = tempDir(t);
  const log = join(dir, "webhooks", "log");
  const full = KEPT_PER_SUBSCRIPTION + PRUNE_SLACK;
  logged(
    join(log, A),
    range(1, full).map((order) => delivery(A, order, order % 10 === 0 ? "failed" : "delivered")),
  );
  logged(join(log, B), [delivery(B, 5, "gone")]);
  const outbox = fileOutbox(dir);

  // One more ends: the folder passes its slack, and the oldest go down to the kept number.
  const last = delivery(A, full + 1, "pending");
  writePending(dir, last);
  saveDelivery(dir, { ...last, state: "delivered" });
  const kept = readdirSync(join(log, A));
  assert.equal(kept.length, KEPT_PER_SUBSCRIPTION);
  const newest = await outbox.deliveriesOf(A, KEPT_PER_SUBSCRIPTION);
  assert.deepEqual(
    newest.map((d) => d.order),
    range(full + 2 - KEPT_PER_SUBSCRIPTION, KEPT_PER_SUBSCRIPTION).reverse(),
    "the newest kept, newest first",
  );
  assert.equal((await outbox.deliveriesOf(B, 10)).length, 1, "another subscription's log is untouched");
  assert.equal(existsSync(join(dir, "webhooks", "outbox", `${last.id}.json`)), false);

  // Counted from the whole log the first time, then one by one: the pruned still count.
  const failed = Math.floor(full / 10);
  assert.deepEqual(await outbox.counts(), {
    pending: 0,
    delivered: full + 1 - failed,
    failed,
    gone: 1,
  });
  const next = delivery(B, full + 2, "gone");
  writePending(dir, next);
  saveDelivery(dir, next);
  assert.equal((await outbox.counts()).gone, 2);

  // Below the slack nothing is read back: a new delivery is simply kept.
  const another = delivery(A, full + 3);
  writePending(dir, another);
  saveDelivery(dir, another);
  assert.equal(readdirSync(join(log, A)).length, KEPT_PER_SUBSCRIPTION + 1);
});

test("a flat log an earlier version wrote is moved into its subscriptions' folders; a damaged file stays as it is", async (t) => {
  const dir = tempDir(t);
  const log = join(dir, "webhooks", "log");
  logged(log, [delivery(A, 1), delivery(A, 2, "failed"), delivery(B, 3, "gone")]);
  const damaged = `msg_${"f".repeat(32)}.json`;
  writeFileSync(join(log, damaged), "{ cut");
  const outbox = fileOutbox(dir);

  assert.deepEqual(
    (await outbox.deliveriesOf(A, 10)).map((d) => d.order),
    [2, 1],
  );
  assert.deepEqual(readdirSync(log).sort(), [A, B, damaged].sort());
  assert.deepEqual(
    deliveryLog(dir).map((d) => d.order),
    [3, 2, 1],
  );
  assert.deepEqual(await outbox.counts(), { pending: 0, delivered: 1, failed: 1, gone: 1 });

  // A moved delivery is found, and sent again, by its id.
  const again = await outbox.resend(delivery(B, 3).id, Date.parse("2026-11-28T01:00:00Z"));
  assert.equal(again.state, "pending");
  assert.equal((await outbox.delivery(again.id))?.state, "pending");
  assert.deepEqual(readdirSync(join(log, B)), []);
  await assert.rejects(outbox.resend(`msg_${"0".repeat(32)}`, 0), /No ended delivery has the id/);
});

test("ids that are not a delivery's or a subscription's read nothing; a damaged count is taken again from the log", async (t) => {
  const dir = tempDir(t);
  const log = join(dir, "webhooks", "log");
  logged(join(log, A), [delivery(A, 1), delivery(A, 2, "gone")]);
  // A folder beside the log that a crafted id could name.
  logged(join(dir, "webhooks", "elsewhere"), [delivery(A, 3)]);
  const outbox = fileOutbox(dir);
  for (const id of ["../elsewhere/" + delivery(A, 3).id, `${delivery(A, 3).id}/..`, ""])
    assert.equal(await outbox.delivery(id), undefined, id);
  await assert.rejects(outbox.resend(`../elsewhere/${delivery(A, 3).id}`, 0), /No ended delivery/);
  assert.deepEqual(await outbox.deliveriesOf("../elsewhere", 10), []);
  assert.deepEqual(await outbox.deliveriesOf(A, 10).then((all) => all.map((d) => d.order)), [2, 1]);

  writeFileSync(join(dir, "webhooks", "ended.json"), "{ cut");
  assert.deepEqual(await outbox.counts(), { pending: 0, delivered: 1, failed: 0, gone: 1 });
  const next = delivery(A, 4, "failed");
  writePending(dir, next);
  saveDelivery(dir, next);
  assert.deepEqual(await outbox.counts(), { pending: 0, delivered: 1, failed: 1, gone: 1 });
});
