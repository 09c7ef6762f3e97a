/**
 * The dashboard's webhook pages over HTTP: a private URL refused with the form kept, a secret
 * shown once, a subscription's deliveries with every attempt's status, resend with the same
 * `webhook-id` (verified by the `standardwebhooks` package), the test event, pause and resume,
 * rotation, deletion, and another account's webhook answering 404.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileWebhookStores } from "../src/webhooks/webhook-stores.ts";
import { subscribe } from "./helpers.ts";
import { Deliverer } from "../src/webhooks/deliverer.ts";
import { enqueue, pendingDeliveries } from "../src/webhooks/outbox.ts";
import { deliveryLog } from "../src/webhooks/delivery-log.ts";
import { readSubscriptions } from "../src/webhooks/subscriptions.ts";
import { signedIn } from "./dashboard-helpers.ts";
import { receiver, verify } from "./webhook-receiver.ts";

const LOOPBACK = { allowPrivate: true, allowHttp: true };

test("a private URL is refused with the form kept; a public one is made and its secret shown once", async (t) => {
  const { dir, client } = await signedIn(t);
  const csrf = await client.token("/dashboard/webhooks");
  const form = new URLSearchParams({ csrf, url: "https://127.0.0.1:8443/in" });
  form.append("events", "data.published");
  form.append("datasets", "grid.system_state");
  const refused = await client.post("/dashboard/webhooks", Object.fromEntries(form));
  assert.equal(refused.status, 400);
  const page = await refused.text();
  assert.match(page, /cannot receive webhooks: .*127\.0\.0\.1.*WEBHOOK_ALLOW_PRIVATE=1/);
  assert.match(page, /value="https:\/\/127\.0\.0\.1:8443\/in"/, "the URL typed is kept");
  assert.match(page, /value="data\.published"\s+checked/);
  assert.doesNotMatch(page, /value="forecast\.issued"\s+checked/, "only the events ticked stay ticked");
  assert.deepEqual(readSubscriptions(dir), [], "nothing is stored");

  const made = await client.post("/dashboard/webhooks", {
    csrf,
    url: "https://93.184.215.14/in",
    events: "grid_stress.band_changed",
    min_band: "critical",
  });
  assert.equal(made.status, 303);
  assert.equal(made.headers.get("location"), "/dashboard/webhooks/new", "the secret is never in a URL");
  const shown = await client.get("/dashboard/webhooks/new");
  assert.equal(shown.headers.get("cache-control"), "no-store");
  const secret = /id="new-secret">(whsec_[^<]+)</.exec(await shown.text())![1]!;
  const again = await (await client.get("/dashboard/webhooks/new")).text();
  assert.ok(!again.includes(secret) && /shown already/.test(again));
  const [stored] = readSubscriptions(dir);
  assert.deepEqual(
    [stored!.account, stored!.url, stored!.events, stored!.min_band],
    ["analyst", "https://93.184.215.14/in", ["grid_stress.band_changed"], "critical"],
  );
  assert.ok(!JSON.stringify(stored).includes(secret.slice(6)), "the secret is stored sealed");
  const list = await (await client.get("/dashboard/webhooks")).text();
  assert.match(list, /https:\/\/93\.184\.215\.14\/in[\s\S]*enabled[\s\S]*none yet/);
});

test("a webhook's page shows each attempt's status; resend sends the same webhook-id again", async (t) => {
  const { dir, client } = await signedIn(t);
  const hook = await receiver(t, [500, 200]);
  const { subscription, secret } = await subscribe(dir, {
    account: "analyst",
    url: hook.url,
    events: ["webhook.test"],
  });
  const view = `/dashboard/webhooks/view?id=${subscription.id}`;
  const csrf = await client.token(view);
  assert.equal((await client.post("/dashboard/webhooks/test", { csrf, id: subscription.id })).status, 303);
  // Posted again while the first waits: no second request is queued, and the page says why.
  const again = await client.post("/dashboard/webhooks/test", { csrf, id: subscription.id });
  assert.equal(again.headers.get("location"), `${view}&notice=webhook-test-waiting`);
  assert.match(await (await client.get(again.headers.get("location")!)).text(), /is still waiting/);
  const [queued, ...more] = pendingDeliveries(dir);
  assert.equal(queued!.event.type, "webhook.test");
  assert.equal(more.length, 0);
  const deliverer = new Deliverer({ webhooks: fileWebhookStores(dir), rules: LOOPBACK, scheduleMs: [0, 0] });
  await deliverer.deliverDue(); // 500
  await deliverer.deliverDue(); // 200
  const page = await (await client.get(view)).text();
  assert.match(page, /webhook\.test[\s\S]*delivered[\s\S]*<strong>500<\/strong>[\s\S]*<strong>200<\/strong>/);

  const resent = await client.post("/dashboard/webhooks/resend", {
    csrf,
    id: subscription.id,
    delivery: queued!.id,
  });
  assert.equal(resent.headers.get("location"), `${view}&notice=webhook-resent`);
  await deliverer.deliverDue();
  assert.equal(hook.received.length, 3);
  const ids = hook.received.map((r) => r.headers["webhook-id"]);
  assert.deepEqual(ids, [queued!.id, queued!.id, queued!.id]);
  const last = hook.received[2]!;
  const event = verify(secret, last);
  assert.equal(event.type, "webhook.test");
  assert.equal(deliveryLog(dir)[0]!.attempts.length, 3, "every attempt stays on record");
});

test("pause, resume, rotate and delete; another account's webhook is a 404 that changes nothing", async (t) => {
  const { dir, client } = await signedIn(t);
  const mine = (
    await subscribe(dir, {
      account: "analyst",
      url: "https://93.184.215.14/a",
      events: ["data.published"],
    })
  ).subscription;
  const theirs = (
    await subscribe(dir, {
      account: "someone",
      url: "https://93.184.215.15/b",
      events: ["data.published"],
    })
  ).subscription;
  const csrf = await client.token("/dashboard/webhooks");
  assert.doesNotMatch(await (await client.get("/dashboard/webhooks")).text(), /93\.184\.215\.15/);
  assert.equal((await client.get(`/dashboard/webhooks/view?id=${theirs.id}`)).status, 404);
  for (const path of ["test", "state", "rotate", "delete"])
    assert.equal(
      (await client.post(`/dashboard/webhooks/${path}`, { csrf, id: theirs.id, action: "pause" })).status,
      404,
    );
  assert.deepEqual(
    readSubscriptions(dir).find((s) => s.id === theirs.id),
    theirs,
  );
  assert.equal(pendingDeliveries(dir).length, 0);
  // Their delivery, named through my webhook's form, is not mine to resend.
  const [their] = enqueue(dir, { type: "webhook.test", data: {} }, { only: theirs.id });
  const sneaked = await client.post("/dashboard/webhooks/resend", { csrf, id: mine.id, delivery: their!.id });
  assert.equal(sneaked.status, 404);
  assert.equal(pendingDeliveries(dir)[0]!.attempts.length, 0, "and nothing changed");

  await client.post("/dashboard/webhooks/state", { csrf, id: mine.id, action: "pause" });
  assert.equal(readSubscriptions(dir)[0]!.paused?.why, "paused by its owner");
  const made = enqueue(dir, { type: "data.published", data: {} });
  assert.equal(made.filter((d) => d.subscription === mine.id).length, 1, "its events wait for it");
  assert.match(
    await (await client.get(`/dashboard/webhooks/view?id=${mine.id}`)).text(),
    /paused \(paused by its owner\)[\s\S]*Resume/,
  );
  await client.post("/dashboard/webhooks/state", { csrf, id: mine.id, action: "resume" });
  assert.equal(readSubscriptions(dir)[0]!.paused, undefined);

  const rotated = await client.post("/dashboard/webhooks/rotate", { csrf, id: mine.id });
  assert.equal(rotated.headers.get("location"), "/dashboard/webhooks/new");
  assert.match(await (await client.get("/dashboard/webhooks/new")).text(), /id="new-secret">whsec_/);
  assert.equal(readSubscriptions(dir)[0]!.secrets.length, 2, "the old secret signs too for a day");
  assert.match(
    await (await client.get(`/dashboard/webhooks/view?id=${mine.id}`)).text(),
    /a rotated secret signs too until/,
  );

  assert.match(
    await (await client.get(`/dashboard/webhooks/delete?id=${mine.id}`)).text(),
    /Delete this webhook\?/,
  );
  const deleted = await client.post("/dashboard/webhooks/delete", { csrf, id: mine.id });
  assert.equal(deleted.headers.get("location"), "/dashboard/webhooks?notice=webhook-deleted");
  assert.deepEqual(
    readSubscriptions(dir).map((s) => s.id),
    [theirs.id],
  );

  // Each event goes to each webhook: an account may have 20.
  for (let n = 0; n < 20; n++)
    await subscribe(dir, {
      account: "analyst",
      url: `https://93.184.215.14/${n}`,
      events: ["data.published"],
    });
  const more = await client.post("/dashboard/webhooks", {
    csrf,
    url: "https://93.184.215.14/x",
    events: "data.published",
  });
  assert.equal(more.status, 400);
  assert.match(await more.text(), /You have 20 webhooks, the most an account may have; delete one first\./);
  assert.equal(readSubscriptions(dir).length, 21);
});
