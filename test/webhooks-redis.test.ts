/**
 * Webhooks with the state shared through Redis: two "VMs" (two data directories, one served by
 * `WORKERS=2`, three server processes in all) on one real redis-server. A subscription made on one
 * is sent from all; an event both VMs' pulls made is delivered once; events made on one VM reach
 * the receiver once each, whichever process leases them; every delivery verifies with the
 * `standardwebhooks` package; the dashboard of either VM lists the deliveries. Then Redis's outbox
 * alone (the visibility timeout, a killed consumer), and `shared-state` import and export of the subscriptions.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { Redis } from "ioredis";
import { keyId } from "../src/files/sealing.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { migrateRedis } from "../src/shared/redis-migrations.ts";
import { withSharedDocuments } from "../src/shared/shared-cli.ts";
import { redisDocumentStore, sharedDocuments } from "../src/shared/shared-documents.ts";
import { Deliverer } from "../src/webhooks/deliverer.ts";
import { enqueue } from "../src/webhooks/outbox.ts";
import { RedisOutbox, redisWebhookStores } from "../src/webhooks/redis-webhooks.ts";
import {
  createSubscription,
  currentSubscriptions,
  type EventType,
  readSubscriptions,
  signingSecrets,
} from "../src/webhooks/subscriptions.ts";
import { fileWebhookStores } from "../src/webhooks/webhook-stores.ts";
import { account, Client, PASSWORD } from "./dashboard-helpers.ts";
import { ingestTexts, startServerProcess, subscribe, tempDir, waitFor } from "./helpers.ts";
import {
  answered,
  ownRedis,
  quickAndPatient,
  REDIS_SKIP,
  redisAndConnection,
  startRedis,
} from "./redis-helpers.ts";
import { receiver, verify } from "./webhook-receiver.ts";

function vm(t: TestContext): string {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-01-01", days: 3 }) });
  return dir;
}

// A subscription's deliveries in Redis's outbox: event, state, next attempt and attempts so far.
async function outboxState(url: string, dir: string, subscription: string): Promise<string> {
  return withSharedDocuments(url, async (_shared, { client }) =>
    (await new RedisOutbox(client, dir).deliveriesOf(subscription, 100))
      .map((d) => `${d.id} ${d.event.type} ${d.state} next ${d.next_at} ${JSON.stringify(d.attempts)}`)
      .join("\n"),
  );
}

const spooled = (dir: string) => {
  const outbox = join(dir, "webhooks", "outbox");
  return existsSync(outbox) ? readdirSync(outbox).filter((n) => n.endsWith(".json")).length : 0;
};

/** Fails when any key or value of the database at `url` holds `key` (base64, or its bytes). */
async function assertNoSealingKeyIn(url: string, key: string): Promise<void> {
  const raw = new Redis(url);
  try {
    const bytes = Buffer.from(key.trim(), "base64");
    for (const name of await raw.keys("*")) {
      const type = await raw.type(name);
      const values =
        type === "string"
          ? [await raw.getBuffer(name)]
          : type === "hash"
            ? Object.values(await raw.hgetallBuffer(name))
            : type === "zset"
              ? await raw.zrangeBuffer(name, 0, -1)
              : await raw.lrangeBuffer(name, 0, -1);
      for (const value of [Buffer.from(name), ...values]) {
        assert.ok(
          value !== null && !value.includes(key.trim()) && !value.includes(bytes),
          `${name} holds the sealing key`,
        );
      }
    }
  } finally {
    raw.disconnect();
  }
}

/** A subscription to `events` in `dir`, to an address no test sends to. */
const subscribeTo = (dir: string, events: EventType[]) =>
  subscribe(dir, { account: "a", url: "https://93.184.215.14/in", events });

test(
  "two VMs on one Redis, one of two workers: a subscription made on one is served by all, and each event arrives once",
  { skip: REDIS_SKIP },
  async (t) => {
    const redis = await startRedis(t);
    const hook = await receiver(t, [204]);
    const [a, b] = [vm(t), vm(t)];
    // VM a runs two workers, VM b one process: three processes deliver from one outbox.
    // Every VM holds the same sealing key, here given as WEBHOOK_SEAL_KEY.
    const sealKey = randomBytes(32).toString("base64");
    const env = {
      REDIS_URL: redis.url,
      WEBHOOK_ALLOW_PRIVATE: "1",
      WEBHOOK_ALLOW_HTTP: "1",
      WEBHOOK_SEAL_KEY: sealKey,
    };
    const servers = await Promise.all([
      startServerProcess(t, a, { env: { ...env, WORKERS: "2" } }),
      startServerProcess(t, b, { env }),
    ]);
    await waitFor(() => (servers[0].stderr().match(/listening on/g) ?? []).length >= 2, "a's workers listen");

    // Made on VM a, as its dashboard or CLI makes one: in Redis, followed into b's DATA_DIR.
    const { subscription, secret } = await withSharedDocuments(redis.url, async (shared, connection) => {
      const webhooks = redisWebhookStores(connection.client, a, redisDocumentStore(shared, a), { sealKey });
      return createSubscription(webhooks.documents, await webhooks.sealingKeys(), {
        account: "desk",
        url: hook.url,
        events: ["data.published", "source.late"],
      });
    });
    await waitFor(() => readSubscriptions(b).some((s) => s.id === subscription.id), "b follows");

    // Both VMs' pulls make the same event (each has its own store and pull): it is sent once.
    const same = { dataset: "grid.system_state", file: "Station_Build_Up.csv", hours_added: 24, url: "/x" };
    enqueue(a, { type: "data.published", data: { ...same, ingested_at: "2025-01-04T04:09:00.000Z" } });
    enqueue(b, { type: "data.published", data: { ...same, ingested_at: "2025-01-04T04:41:00.000Z" } });
    // And VM b's pull makes 20 more, which the three processes share out.
    for (let n = 0; n < 20; n++)
      enqueue(b, { type: "source.late", data: { file: `f${n}.csv`, url: "/healthz" } });
    await waitFor(() => hook.received.length >= 21, "21 deliveries arrive").catch(async (error: Error) => {
      // What each delivery went through, and what the servers said: for a failure on a busy machine.
      const said = servers.map((s) => s.stderr()).join("\n");
      const counts = `${hook.received.length} received, ${spooled(a) + spooled(b)} spooled`;
      throw new Error(
        `${error.message}: ${counts}\n${await outboxState(redis.url, a, subscription.id)}\n${said}`,
      );
    });
    await waitFor(() => spooled(a) + spooled(b) === 0, "both VMs' outboxes are emptied into Redis");

    // Every pending delivery has been sent: nothing more arrives for a round of polls.
    // A Redis command past its 100 ms bound (a loaded host) is a 503 to retry: each is asked again.
    const client = new Client(`http://127.0.0.1:${servers[1].port}`, { retry: answered });
    await account(b, "desk");
    await waitFor(() => existsSync(join(b, "accounts.json")), "the account is there");
    assert.equal((await client.signIn("desk", PASSWORD)).status, 303, "a sign-in on b");
    await waitFor(
      async () => {
        const page = await (await client.get(`/dashboard/webhooks/view?id=${subscription.id}`)).text();
        return (page.match(/>delivered</g) ?? []).length === 21;
      },
      "b's dashboard shows 21 delivered",
      { everyMs: 200 },
    );
    assert.equal(hook.received.length, 21, "each event once");
    const ids = hook.received.map((r) => r.headers["webhook-id"]);
    assert.equal(new Set(ids).size, 21, "21 webhook-ids");
    const types = hook.received.map((r) => verify(secret, r).type);
    assert.equal(
      types.filter((type) => type === "data.published").length,
      1,
      "the event both pulls made, once",
    );
  },
);

test(
  "Redis's outbox: a leased delivery is invisible to others until its visibility timeout ends, then leased again with its id; paused ones wait",
  { skip: REDIS_SKIP },
  async (t) => {
    const redis = await startRedis(t);
    const dir = tempDir(t);
    const { subscription } = await subscribeTo(dir, ["webhook.test"]);
    await withSharedDocuments(redis.url, async (_shared, one) =>
      withSharedDocuments(redis.url, async (_other, two) => {
        const [first, second] = [new RedisOutbox(one.client, dir), new RedisOutbox(two.client, dir)];
        const [made] = await first.enqueue(
          { type: "webhook.test", data: {} },
          { only: subscription.id, now: 1_000 },
        );
        const none = new Set<string>();
        assert.deepEqual(
          (await first.lease(1_000, 20_000, none)).deliveries.map((d) => d.id),
          [made!.id],
        );
        assert.deepEqual(
          (await second.lease(1_000, 20_000, none)).deliveries,
          [],
          "leased: invisible to the other",
        );
        // The consumer was killed before its ack: after the visibility timeout, another leases it, with the same id.
        const again = (await second.lease(1_000 + 10 * 20_000, 20_000, none)).deliveries;
        assert.deepEqual(
          again.map((d) => d.id),
          [made!.id],
        );
        await second.save({ ...again[0]!, next_at: new Date(500_000).toISOString() });
        assert.deepEqual(
          (await first.lease(500_000, 20_000, new Set([subscription.id]))).deliveries,
          [],
          "a paused one waits",
        );
        assert.equal(
          (await first.lease(500_000, 20_000, none)).deliveries.length,
          1,
          "and goes when resumed",
        );
        await first.save({ ...made!, state: "delivered" });
        assert.deepEqual(await first.counts(), { pending: 0, delivered: 1, failed: 0, gone: 0 });
        const resent = await second.resend(made!.id, 600_000);
        assert.equal(resent.id, made!.id);
        assert.equal((await first.deliveriesOf(subscription.id, 10))[0]!.state, "pending");
        await assert.rejects(
          first.resend(made!.id, 600_000),
          /No ended delivery/,
          "a pending one is not resent",
        );
      }),
    );
  },
);

test(
  "Redis's outbox: a paused subscription's many are read once, set apart, not at every lease; oldest first",
  { skip: REDIS_SKIP },
  async (t) => {
    // Its own server: INFO's command counts are the server's, whatever database a test has.
    const redis = await ownRedis(t);
    const dir = tempDir(t);
    const paused = (await subscribeTo(dir, ["webhook.test"])).subscription.id;
    const active = (await subscribeTo(dir, ["webhook.test"])).subscription.id;
    await withSharedDocuments(redis.url, async (_shared, { client }) => {
      const outbox = new RedisOutbox(client, dir);
      const event = { type: "webhook.test" as const, data: {} };
      // 250 waiting for a paused subscription (two and a half pages), then 15 of an active one.
      for (let i = 0; i < 250; i++) await outbox.enqueue(event, { only: paused, now: 1_000 + i });
      const made: string[] = [];
      for (let i = 0; i < 15; i++)
        made.push(...(await outbox.enqueue(event, { only: active, now: 2_000 + i })).map((d) => d.id));
      const ranges = async () =>
        Number(/cmdstat_zrangebyscore:calls=(\d+)/.exec(await client.info("commandstats"))?.[1] ?? 0);

      const skip = new Set([paused]);
      const leased: string[] = [];
      let before = await ranges();
      leased.push(...(await outbox.lease(3_000, 20_000, skip)).deliveries.map((d) => d.id));
      assert.equal((await ranges()) - before, 3, "three pages read: 250 set apart, then 10 leased");
      before = await ranges();
      leased.push(...(await outbox.lease(3_000, 20_000, skip)).deliveries.map((d) => d.id));
      assert.equal((await ranges()) - before, 1, "the paused one's are not read again: one page");
      assert.deepEqual(
        (await outbox.lease(3_000, 20_000, skip)).deliveries,
        [],
        "nothing more of the active one",
      );
      assert.deepEqual(leased, made, "each once, oldest first");
      assert.equal((await outbox.counts()).pending, 265, "those set apart still count as pending");
      assert.equal(await outbox.nextDue(), 3_000 + 10 * 20_000, "and a paused one's are not due");

      // Resumed: its 250 go, ten a lease, each read from the first page only.
      const resumed: string[] = [];
      const start = await ranges();
      for (let i = 0; i < 25; i++)
        resumed.push(...(await outbox.lease(4_000, 20_000, new Set())).deliveries.map((d) => d.id));
      assert.equal(new Set(resumed).size, 250);
      assert.equal((await ranges()) - start, 25, "one page a lease");
    });
  },
);

/**
 * A lease whose answer was lost: one delivery enqueued, Redis made busy for 2 s, the consumer's
 * lease timed out (and ran later), and the other consumer found it invisible, leased by it.
 */
async function lostLease(t: TestContext) {
  const { quick, patient, busy } = await quickAndPatient(t);
  const dir = tempDir(t);
  const { subscription } = await subscribeTo(dir, ["webhook.test"]);
  const [consumer, other] = [new RedisOutbox(quick.client, dir), new RedisOutbox(patient.client, dir)];
  const none = new Set<string>();
  assert.deepEqual(
    (await consumer.lease(500, 20_000, none)).deliveries,
    [],
    "nothing due yet (and the script is loaded)",
  );
  const [made] = await other.enqueue(
    { type: "webhook.test", data: {} },
    { only: subscription.id, now: 1_000 },
  );
  // Redis is busy for 2 s: the lease runs when it can, after the consumer has given up on its answer.
  await busy();
  await assert.rejects(consumer.lease(1_000, 20_000, none), /timed out/);
  assert.deepEqual(
    (await other.lease(1_000, 20_000, none)).deliveries,
    [],
    "leased by the lost lease, as it ran",
  );
  return { consumer, other, made: made!, subscription, none };
}

test(
  "Redis's outbox: a lease whose answer was lost (a timed-out command) is asked again and gets the same deliveries",
  { skip: REDIS_SKIP },
  async (t) => {
    const { consumer, other, made, none } = await lostLease(t);
    // Its consumer asks again and attempts it now, rather than after the visibility timeout (10 x 20 s).
    const again = (await consumer.lease(2_000, 20_000, none)).deliveries;
    assert.deepEqual(
      again.map((d) => d.id),
      [made.id],
    );
    assert.deepEqual(
      (await consumer.lease(3_000, 20_000, none)).deliveries,
      [],
      "asked once more: nothing new is due",
    );
    await consumer.save({ ...again[0]!, state: "delivered" });
    assert.deepEqual(await other.counts(), { pending: 0, delivered: 1, failed: 0, gone: 0 });
  },
);

test(
  "Redis's outbox: a lost lease asked again after its subscription was paused gives that delivery back, due",
  { skip: REDIS_SKIP },
  async (t) => {
    const { consumer, other, made, subscription, none } = await lostLease(t);
    // Paused before its consumer asks again: not attempted, and not invisible for the lease's 200 s either.
    const paused = new Set([subscription.id]);
    assert.deepEqual((await consumer.lease(2_000, 20_000, paused)).deliveries, []);
    assert.deepEqual((await other.lease(3_000, 20_000, paused)).deliveries, [], "waits while paused");
    assert.deepEqual(
      (await other.lease(4_000, 20_000, none)).deliveries.map((d) => d.id),
      [made.id],
      "due at once when resumed",
    );
  },
);

test(
  "Redis's outbox: the pull's event is moved in once even when Redis answers too late, never dropped",
  { skip: REDIS_SKIP },
  async (t) => {
    const { quick, patient, busy } = await quickAndPatient(t);
    const dir = tempDir(t);
    await subscribeTo(dir, ["source.late"]);
    const [mover, other] = [new RedisOutbox(quick.client, dir), new RedisOutbox(patient.client, dir)];
    // The pull's event, in DATA_DIR's outbox.
    const [made] = enqueue(dir, { type: "source.late", data: { file: "Hourly_Generation.csv" } });

    // Redis is busy for 2 s: the mark "this event was made" is written after the mover gave up.
    await busy();
    await assert.rejects(mover.drainFileOutbox(), /timed out/);
    assert.deepEqual(await other.counts(), { pending: 0, delivered: 0, failed: 0, gone: 0 });
    // Moved in when it is asked again: the mark is its own, not another VM's.
    assert.equal(await mover.drainFileOutbox(), 1);
    assert.equal((await other.delivery(made!.id))?.state, "pending");
    assert.equal(await mover.drainFileOutbox(), 0, "and only once");
    assert.equal((await other.counts()).pending, 1);
  },
);

test(
  "an outcome Redis takes too late to answer fails the round, and the rest of that lease go out in the next, not after their visibility timeout",
  { skip: REDIS_SKIP },
  async (t) => {
    const { quick, patient, busy } = await quickAndPatient(t);
    // The receiver's first answer waits until Redis holds writes for 2 s: its outcome's write times out.
    let paused: Promise<unknown> | undefined;
    const hook = await receiver(t, [204], {}, () => (paused ??= busy("WRITE")));
    const dir = tempDir(t);
    const webhooks = redisWebhookStores(quick.client, dir, redisDocumentStore(sharedDocuments(quick), dir));
    const { subscription } = await createSubscription(webhooks.documents, await webhooks.sealingKeys(), {
      account: "desk",
      url: hook.url,
      events: ["source.late"],
    });
    for (const file of ["a.csv", "b.csv", "c.csv"])
      await webhooks.outbox.enqueue({ type: "source.late", data: { file } });
    let clock = Date.now();
    const rules = { allowPrivate: true, allowHttp: true };
    const deliverer = new Deliverer({ webhooks, rules, now: () => clock });

    await assert.rejects(deliverer.deliverDue(), /timed out/);
    assert.equal(hook.received.length, 1, "the round stopped at the outcome it could not write");
    await patient.client.set("pause-over", "1"); // a write: answered once the pause is over
    // The next round, 25 s on (longer than one attempt's visibility timeout, within the lease's ten),
    // goes on with the two untried, which are this process's until the lease's end; the first's late
    // write landed, so it is not sent again.
    clock += 25_000;
    assert.equal(await deliverer.deliverDue(), 2);
    assert.equal(hook.received.length, 3, "each once");
    assert.deepEqual(
      (await webhooks.outbox.deliveriesOf(subscription.id, 10)).map((d) => d.state),
      ["delivered", "delivered", "delivered"],
    );
  },
);

test(
  "a process whose DATA_DIR has not yet followed a new subscription delivers its events, not fails them",
  { skip: REDIS_SKIP },
  async (t) => {
    const redis = await startRedis(t);
    const hook = await receiver(t, [204]);
    const [made, behind] = [tempDir(t), tempDir(t)];
    await withSharedDocuments(redis.url, async (shared, connection) => {
      // Made on one VM; the other's copy in its DATA_DIR has not followed yet (a notice in flight).
      const sealKey = randomBytes(32).toString("base64"); // both VMs hold it
      const here = redisWebhookStores(connection.client, made, redisDocumentStore(shared, made), { sealKey });
      const { subscription } = await createSubscription(here.documents, await here.sealingKeys(), {
        account: "desk",
        url: hook.url,
        events: ["source.late"],
      });
      await here.outbox.enqueue({ type: "source.late", data: { file: "f.csv" } });
      assert.deepEqual(readSubscriptions(behind), [], "the other VM's copy is behind");
      const there = redisWebhookStores(connection.client, behind, redisDocumentStore(shared, behind), {
        sealKey,
      });
      const rules = { allowPrivate: true, allowHttp: true };
      assert.equal(await new Deliverer({ webhooks: there, rules }).deliverDue(), 1);
      assert.equal(hook.received.length, 1, "delivered");
      const [delivery] = await there.outbox.deliveriesOf(subscription.id, 10);
      assert.equal(delivery!.state, "delivered");
    });
  },
);

test(
  "shared-state import moves the subscriptions into Redis, never their sealing key, which every VM must hold; export brings them back",
  { skip: REDIS_SKIP },
  async (t) => {
    const redis = await startRedis(t);
    const [alone, other, back] = [tempDir(t), tempDir(t), tempDir(t)];
    const { subscription, secret } = await subscribe(alone, {
      account: "a",
      url: "https://93.184.215.14/in",
      events: ["data.published"],
    });
    const sealKey = readFileSync(join(alone, "webhooks", "seal.key"), "utf8");
    const cli = (dir: string, command: string) =>
      spawnSync(process.execPath, ["--import", "tsx", "scripts/shared-state.ts", command], {
        cwd: join(import.meta.dirname, ".."),
        env: { ...process.env, DATA_DIR: dir, REDIS_URL: redis.url },
        encoding: "utf8",
      });
    const imported = cli(alone, "import");
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(
      imported.stderr,
      /webhooks\/subscriptions\.json: imported[\s\S]*webhooks\/seal\.key: stays on this VM \(id [0-9a-f]{16}\)/,
    );
    await assertNoSealingKeyIn(redis.url, sealKey);
    // Another VM with a key of its own is refused, saying why; given the first's key, it signs.
    await withSharedDocuments(redis.url, async (shared, connection) => {
      const webhooks = redisWebhookStores(connection.client, other, redisDocumentStore(shared, other));
      await assert.rejects(
        webhooks.sealingKeys(),
        /This VM's sealing key .* is not the one the webhook secrets in Redis are sealed under/,
      );
      cpSync(join(alone, "webhooks", "seal.key"), join(other, "webhooks", "seal.key"));
      const [found] = await currentSubscriptions(webhooks.documents);
      assert.equal(found!.id, subscription.id);
      assert.deepEqual(signingSecrets(await webhooks.sealingKeys(), found!, Date.now()), [secret]);
    });
    const status = cli(alone, "status");
    assert.match(status.stdout, /sealing key\tid ([0-9a-f]{16}) in Redis; this VM holds \1\n/);
    // The webhooks CLI with REDIS_URL, on a VM that serves no copy of the subscriptions.
    const webhooksCli = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", "scripts/webhooks.ts", ...args], {
        cwd: join(import.meta.dirname, ".."),
        env: { ...process.env, DATA_DIR: tempDir(t), REDIS_URL: redis.url },
        encoding: "utf8",
      });
    assert.match(webhooksCli("list").stdout, new RegExp(`${subscription.id}  a  enabled  data.published`));
    const queued = webhooksCli("test", subscription.id);
    assert.equal(queued.status, 0, queued.stderr);
    const id = /Queued (msg_\w+)/.exec(queued.stdout)![1]!;
    assert.match(
      webhooksCli("deliveries", subscription.id).stdout,
      new RegExp(`${id}  webhook.test  pending`),
    );
    const exported = cli(back, "export");
    assert.equal(exported.status, 0, exported.stderr);
    assert.equal(existsSync(join(back, "webhooks", "seal.key")), false, "the key is not Redis's to give");
    const webhooks = fileWebhookStores(back, { sealKey });
    const [kept] = readSubscriptions(back);
    assert.deepEqual(signingSecrets(await webhooks.sealingKeys(), kept!, Date.now()), [secret]);
  },
);

test(
  "an earlier release's Redis: the doubled prefix is undone, and the sealing key it held leaves it for DATA_DIR",
  { skip: REDIS_SKIP },
  async (t) => {
    const { redis, connection } = await redisAndConnection(t);
    const raw = new Redis(redis.url);
    t.after(() => raw.disconnect());
    // What 1.8 wrote: its names had the connection's prefix in them already.
    const legacyKey = randomBytes(32).toString("base64");
    await raw.zadd("gds:gds:wh:due", 1, "wh_1 msg_1");
    await raw.set("gds:gds:wh:d:msg_1", "{}");
    await raw.set("gds:gds:dashboard-secret", randomBytes(32).toString("base64"));
    await raw.set("gds:gds:webhook-seal-key", legacyKey);
    await raw.hset("gds:gds:wh:ended", "delivered", "3");
    await raw.hset("gds:wh:ended", "delivered", "1"); // already there: the old one is left
    const said: string[] = [];
    const log = (line: string) => void said.push(line);

    // A VM whose WEBHOOK_SEAL_KEY is another key is refused, and the key stays for the others.
    const stranger = tempDir(t);
    const strangers = redisWebhookStores(
      connection.client,
      stranger,
      redisDocumentStore(sharedDocuments(connection), stranger),
      {
        sealKey: randomBytes(32).toString("base64"),
        log,
      },
    );
    await assert.rejects(
      strangers.sealingKeys(),
      /Redis holds the key the webhook secrets are sealed under \(id [0-9a-f]{16}, at gds:gds:webhook-seal-key\) and WEBHOOK_SEAL_KEY does not/,
    );

    await migrateRedis(connection.client, log);
    assert.deepEqual(await raw.zrange("gds:wh:due", 0, -1), ["wh_1 msg_1"]);
    assert.equal(await raw.get("gds:wh:d:msg_1"), "{}");
    assert.ok((await raw.exists("gds:dashboard-secret")) === 1);
    assert.deepEqual((await raw.keys("gds:gds:*")).sort(), ["gds:gds:wh:ended"]);
    assert.equal(await raw.hget("gds:wh:ended", "delivered"), "1");
    assert.match(said.join("\n"), /4 keys named gds:gds:… by an earlier release are now gds:…/);
    assert.match(
      said.join("\n"),
      /1 keys named gds:gds:… were left, as their new names are taken: gds:gds:wh:ended/,
    );

    // The first VM of this release to ask takes the key into its DATA_DIR, before its own.
    const first = tempDir(t);
    const ownKey = randomBytes(32).toString("base64");
    mkdirSync(join(first, "webhooks"));
    writeFileSync(join(first, "webhooks", "seal.key"), `${ownKey}\n`);
    const webhooks = redisWebhookStores(
      connection.client,
      first,
      redisDocumentStore(sharedDocuments(connection), first),
      { log },
    );
    const keys = await webhooks.sealingKeys();
    assert.equal(keys.id, keyId(Buffer.from(legacyKey, "base64")));
    assert.equal(readFileSync(join(first, "webhooks", "seal.key"), "utf8"), `${legacyKey}\n${ownKey}\n`);
    assert.equal(statSync(join(first, "webhooks", "seal.key")).mode & 0o777, 0o600);
    assert.match(
      said.join("\n"),
      /sealing key \(id [0-9a-f]{16}\) moved out of Redis into this VM's DATA_DIR\/webhooks\/seal\.key/,
    );
    await assertNoSealingKeyIn(redis.url, legacyKey);
    // The next start finds nothing more to do.
    said.length = 0;
    await migrateRedis(connection.client, log);
    assert.deepEqual(said, []);
  },
);
