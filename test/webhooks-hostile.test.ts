/**
 * The webhooks' door as an attacker tries it (docs/webhooks.md, "Where a webhook may go"): every
 * special-purpose range of IANA's registries, loopback in every spelling a URL allows, refusals
 * that would map the operator's network, a name that resolves inside on the second lookup (DNS
 * rebinding), a redirect, what the delivery log tells an account, and an account's limits (its
 * webhooks, made on two VMs at once; its test events). Names resolve through a
 * resolver the test scripts (`DestinationRules.resolve`), as DNS cannot be played on loopback
 * without changing the machine's resolver; every connection is real, to a loopback receiver.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { TEST_EVENTS_PER_MINUTE, WEBHOOKS_PER_ACCOUNT } from "../src/dashboard/routes/webhook-routes.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { redisWebhookStores } from "../src/webhooks/redis-webhooks.ts";
import { createSubscription, currentSubscriptions } from "../src/webhooks/subscriptions.ts";
import { checkDestination, type Resolve } from "../src/webhooks/destination.ts";
import { isPublicAddress } from "../src/webhooks/public-address.ts";
import { Deliverer } from "../src/webhooks/deliverer.ts";
import { enqueue, pendingDeliveries } from "../src/webhooks/outbox.ts";
import { deliveryLog } from "../src/webhooks/delivery-log.ts";
import { fileWebhookStores } from "../src/webhooks/webhook-stores.ts";
import { account, Client, PASSWORD, signedIn } from "./dashboard-helpers.ts";
import { ingestTexts, startServer, subscribe, tempDir } from "./helpers.ts";
import { REDIS_SKIP, vmsOnRedis } from "./redis-helpers.ts";
import { receiver } from "./webhook-receiver.ts";

const STRICT = { allowPrivate: false, allowHttp: false };

// The first and last address of each refused range, and what lies just outside it.
const REFUSED = [
  ...["0.0.0.0", "0.255.255.255", "10.0.0.0", "10.255.255.255", "100.64.0.0", "100.127.255.255"],
  ...["127.0.0.1", "127.255.255.254", "169.254.169.254", "172.16.0.1", "172.31.255.255"],
  ...["192.0.0.1", "192.0.0.170", "192.0.2.1", "192.31.196.1", "192.52.193.1", "192.88.99.1"],
  ...["192.168.0.1", "192.175.48.1", "198.18.0.1", "198.19.255.255", "198.51.100.1", "203.0.113.1"],
  ...["224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255"],
  ...["::", "::1", "::127.0.0.1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1"],
  ...["::ffff:0:7f00:1", "64:ff9b::7f00:1", "64:ff9b::808:808", "64:ff9b:1::1", "100::1"],
  ...["2001::1", "2001:0:4136:e378::1", "2001:2::1", "2001:1ff:ffff::1", "2001:db8::1"],
  ...["2002:7f00:1::1", "2002:808:808::1", "2620:4f:8000::1", "3fff::1", "5f00::1", "fc00::1"],
  ...["fd12:3456::1", "fe80::1", "fec0::1", "ff02::1", "0:0:0:0:0:0:0:1"],
];
const PUBLIC = [
  ...["1.1.1.1", "8.8.8.8", "41.0.0.1", "100.63.255.255", "100.128.0.0", "172.15.255.255"],
  ...["172.32.0.0", "192.0.1.1", "192.169.0.1", "198.17.255.255", "198.20.0.0", "223.255.255.255"],
  ...["::ffff:8.8.8.8", "2001:200::1", "2001:4860:4860::8888", "2003::1", "2606:4700::1111"],
];

test("every special-purpose range of IANA's registries is refused; the public space around them is not", () => {
  for (const address of REFUSED) assert.equal(isPublicAddress(address), false, `${address} is refused`);
  for (const address of PUBLIC) assert.equal(isPublicAddress(address), true, `${address} is public`);
});

test("loopback and private addresses are refused in every spelling a URL allows", async () => {
  for (const host of [
    ...["127.1", "0x7f.1", "0x7f000001", "2130706433", "0177.0.0.1", "017700000001", "127.0.0.1."],
    ...["%31%32%37.0.0.1", "0", "0.0.0.0", "10.1", "0xa9.0xfe.0xa9.0xfe", "[::ffff:127.0.0.1]"],
    ...["[0:0:0:0:0:ffff:7f00:1]", "[::1]", "[::]", "[::127.0.0.1]", "[64:ff9b::7f00:1]"],
    ...["[2002:7f00:1::]", "[fe80::1]"],
  ]) {
    await assert.rejects(
      checkDestination(`https://${host}:8443/hooks`, STRICT),
      /is not a public address: refused/,
      host,
    );
  }
});

/** A resolver that answers from `names`, and says ENOTFOUND for any other name, as getaddrinfo does. */
function scripted(names: Record<string, string[] | (() => string[])>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = (host: string) => {
    asked.push(host);
    const entry = names[host];
    if (entry === undefined)
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" }));
    const addresses = typeof entry === "function" ? entry() : entry;
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));
  };
  return Object.assign(resolve, { asked });
}

test("a refusal of a name says neither what it resolved to nor whether it resolved at all", async () => {
  const resolve = scripted({
    "db.inside.example": ["10.20.30.40"],
    "meta.inside.example": ["169.254.169.254"],
    "mixed.example": ["93.184.216.34", "192.168.7.7"],
    "six.inside.example": ["fd00::7"],
    "empty.example": [],
  });
  const said = new Set<string>();
  for (const host of ["db.inside.example", "meta.inside.example", "mixed.example", "six.inside.example"]) {
    const error = await checkDestination(`https://${host}/hooks`, { ...STRICT, resolve }).catch(
      (e: Error) => e,
    );
    assert.ok(error instanceof Error, host);
    assert.doesNotMatch(error.message, /\d+\.\d+\.\d+\.\d+|fd00|::/, "no address is named");
    said.add(error.message.replace(host, "HOST"));
  }
  for (const host of ["nowhere.inside.example", "empty.example"]) {
    const error = await checkDestination(`https://${host}/hooks`, { ...STRICT, resolve }).catch(
      (e: Error) => e,
    );
    said.add((error as Error).message.replace(host, "HOST"));
  }
  assert.equal(said.size, 1, `one refusal for all: ${[...said].join(" | ")}`);
  // The system's resolver too: localhost is refused without its address.
  const local = await checkDestination("https://localhost/hooks", STRICT).catch((e: Error) => e);
  assert.equal((local as Error).message.replace("localhost", "HOST"), [...said][0]);
  // A public name passes, and is connected to at the address checked.
  assert.deepEqual(
    (
      await checkDestination("https://hooks.example/in", {
        ...STRICT,
        resolve: scripted({ "hooks.example": ["93.184.216.34"] }),
      })
    ).address,
    "93.184.216.34",
  );
});

test("a name that resolves inside on its second lookup is refused at delivery, before any connection", async (t) => {
  const dir = tempDir(t);
  const inside = await receiver(t, [200]);
  const port = new URL(inside.url).port;
  let lookups = 0;
  // Public when the subscription is made; the receiver's loopback address from then on.
  const resolve = scripted({ "rebind.example": () => (++lookups === 1 ? ["93.184.216.34"] : ["127.0.0.1"]) });
  const rules = { allowPrivate: false, allowHttp: true, resolve };
  const url = `http://rebind.example:${port}/hooks`;
  await checkDestination(url, rules); // what the CLI and the dashboard ask before they store it
  await subscribe(dir, { account: "mallory", url, events: ["webhook.test"] });
  enqueue(dir, { type: "webhook.test", data: {} });
  await new Deliverer({ webhooks: fileWebhookStores(dir), rules, scheduleMs: [0, 60_000] }).deliverDue();
  assert.equal(inside.connections.opened, 0, "nothing reached the address inside");
  const [attempt] = pendingDeliveries(dir)[0]!.attempts;
  assert.match(
    attempt!.error!,
    /rebind\.example is refused: a webhook's host must resolve, and only to public/,
  );
  assert.doesNotMatch(attempt!.error!, /127\.0\.0\.1/);
});

test("an attempt connects to the address it checked: a name is resolved once per attempt", async (t) => {
  const dir = tempDir(t);
  const hook = await receiver(t, [204]);
  const resolve = scripted({ "pinned.example": ["127.0.0.1"] });
  // The system's resolver knows no pinned.example: an attempt that resolved it again would fail.
  const url = `http://pinned.example:${new URL(hook.url).port}/hooks`;
  const { subscription } = await subscribe(dir, { account: "a", url, events: ["webhook.test"] });
  enqueue(dir, { type: "webhook.test", data: {} });
  const rules = { allowPrivate: true, allowHttp: true, resolve };
  await new Deliverer({ webhooks: fileWebhookStores(dir), rules, scheduleMs: [0] }).deliverDue();
  assert.equal(hook.received.length, 1);
  assert.equal(hook.received[0]!.headers.host, `pinned.example:${new URL(hook.url).port}`);
  assert.deepEqual(resolve.asked, ["pinned.example"]);
  const [ended] = deliveryLog(dir);
  assert.deepEqual([ended!.subscription, ended!.state], [subscription.id, "delivered"]);
});

test("a redirect is never followed: the attempt fails with its status, and its target hears nothing", async (t) => {
  const dir = tempDir(t);
  const target = await receiver(t, [200]);
  const redirect = await receiver(t, [307], { location: target.url });
  const { subscription } = await subscribe(dir, {
    account: "a",
    url: redirect.url,
    events: ["webhook.test"],
  });
  enqueue(dir, { type: "webhook.test", data: {} });
  const rules = { allowPrivate: true, allowHttp: true };
  await new Deliverer({ webhooks: fileWebhookStores(dir), rules, scheduleMs: [0, 60_000] }).deliverDue();
  assert.equal(redirect.received.length, 1);
  assert.equal(target.connections.opened, 0);
  const [pending] = pendingDeliveries(dir);
  assert.equal(pending!.subscription, subscription.id);
  assert.equal(pending!.attempts[0]!.status, 307);
});

test("a failed connection is told in words that name no address", async (t) => {
  const dir = tempDir(t);
  // A port nothing listens on: taken, then let go.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  await subscribe(dir, { account: "a", url: `http://127.0.0.1:${port}/hooks`, events: ["webhook.test"] });
  enqueue(dir, { type: "webhook.test", data: {} });
  const rules = { allowPrivate: true, allowHttp: true };
  await new Deliverer({ webhooks: fileWebhookStores(dir), rules, scheduleMs: [0, 60_000] }).deliverDue();
  const [attempt] = pendingDeliveries(dir)[0]!.attempts;
  assert.equal(attempt!.error, "the connection was refused (ECONNREFUSED)");
});

test(
  "two VMs making an account's last webhook at once: one is made, the other is told the limit",
  { skip: REDIS_SKIP },
  async (t) => {
    const { connection, vms } = await vmsOnRedis(t, 2);
    const sealKey = randomBytes(32).toString("base64"); // every VM holds the same
    const servers = await Promise.all(
      vms.map(async (vm) => {
        ingestTexts(vm.dir, { "sample.csv": generateSampleExport({ firstDay: "2025-06-01", days: 2 }) });
        const webhooks = redisWebhookStores(connection.client, vm.dir, vm.documents, { sealKey });
        return { vm, webhooks, server: await startServer(t, vm.dir, { documents: vm.documents, webhooks }) };
      }),
    );
    // The account, and all but one of its webhooks, made on the first VM: in Redis and its copy.
    const [first, second] = servers as [(typeof servers)[0], (typeof servers)[0]];
    for (const vm of vms) await account(vm.dir, "mallory");
    const keys = await first.webhooks.sealingKeys();
    for (let n = 1; n < WEBHOOKS_PER_ACCOUNT; n++) {
      const url = `https://93.184.215.14/${n}`;
      await createSubscription(first.webhooks.documents, keys, {
        account: "mallory",
        url,
        events: ["data.published"],
      });
    }
    const clients = await Promise.all(
      servers.map(async ({ server }) => {
        const client = new Client(server.url);
        assert.equal((await client.signIn("mallory", PASSWORD)).status, 303);
        return { client, csrf: await client.token("/dashboard/webhooks") };
      }),
    );
    const answers = await Promise.all(
      clients.map(({ client, csrf }, i) =>
        client.post("/dashboard/webhooks", {
          csrf,
          url: `https://93.184.215.14/last-${i}`,
          events: "data.published",
        }),
      ),
    );
    assert.deepEqual(answers.map((res) => res.status).sort(), [303, 400]);
    const refused = answers.find((res) => res.status === 400)!;
    assert.match(
      await refused.text(),
      /You have 20 webhooks, the most an account may have; delete one first\./,
    );
    const mine = (await currentSubscriptions(second.webhooks.documents)).filter(
      (s) => s.account === "mallory",
    );
    assert.equal(mine.length, WEBHOOKS_PER_ACCOUNT);
  },
);

test("an account sends at most 5 test events a minute, whatever its webhooks: then 429 with Retry-After", async (t) => {
  const { dir, client } = await signedIn(t);
  const made = [];
  for (let n = 0; n <= TEST_EVENTS_PER_MINUTE; n++) {
    const url = `https://93.184.215.14/${n}`;
    made.push((await subscribe(dir, { account: "analyst", url, events: ["webhook.test"] })).subscription);
  }
  const csrf = await client.token("/dashboard/webhooks");
  for (const s of made.slice(0, TEST_EVENTS_PER_MINUTE)) {
    const res = await client.post("/dashboard/webhooks/test", { csrf, id: s.id });
    assert.equal(res.headers.get("location"), `/dashboard/webhooks/view?id=${s.id}&notice=webhook-test`);
  }
  const refused = await client.post("/dashboard/webhooks/test", { csrf, id: made.at(-1)!.id });
  assert.equal(refused.status, 429);
  assert.match(refused.headers.get("retry-after")!, /^([1-9]|[1-5]\d|60)$/);
  assert.match(
    await refused.text(),
    /You sent 5 test events in the last minute, the most an account may; try again in \d+ seconds\./,
  );
  assert.equal(pendingDeliveries(dir).length, TEST_EVENTS_PER_MINUTE, "the sixth was not queued");
});
