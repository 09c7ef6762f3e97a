/**
 * The webhooks' state in Redis, for several processes and VMs (docs/webhooks.md, "Across cores and VMs"):
 * the subscriptions are a shared document (given in), and the outbox is Redis's (the names below
 * are given with the connection's prefix, `gds:`):
 *
 * - `gds:wh:d:<id>` holds a delivery's JSON; `gds:wh:due` the pending ones by when they are due
 *   (member `<subscription> <id>`); `gds:wh:sub:<subscription>` a subscription's deliveries by
 *   the order their events were made, its newest 1,000 kept; `gds:wh:ended` counts how they ended.
 * - A lease is one Lua script: the due deliveries of subscriptions not paused are pushed past
 *   their visibility timeout (the time their attempts may take), so no other process receives
 *   them meanwhile, and a process killed during an attempt leaves them due again, sent with the
 *   same `webhook-id`. Each lease is kept under its own key until its visibility timeout ends, so
 *   a lease whose answer was lost is asked again and answers the same deliveries (but those of a
 *   subscription paused meanwhile, which are due again). Saving a delivery after its attempt is
 *   its ack.
 * - The pull, which has no Redis, leaves its events in DATA_DIR's outbox; `drainFileOutbox` moves
 *   them in, each event once by its dedupe key: two VMs whose pulls made the same event within 6
 *   hours send it once.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { DocumentStore } from "../files/document-store.ts";
import {
  type Delivery,
  deliveriesFor,
  dropPending,
  type EnqueueOptions,
  pendingDeliveries,
  type WebhookEvent,
} from "./outbox.ts";
import { KEPT_PER_SUBSCRIPTION } from "./delivery-log.ts";
import type { DeliveryCounts, Lease, OutboxStore } from "./outbox-store.ts";
import { checkedSealingKeys, recordSealingKey } from "./redis-sealing.ts";
import type { WebhookStores } from "./webhook-stores.ts";

// The connection puts `gds:` before every key.
const PREFIX = "wh:";
const DUE = `${PREFIX}due`;
/** The paused subscriptions whose deliveries wait apart, each in its `heldKey`. */
const HELD = `${PREFIX}held-subscriptions`;
const ENDED = `${PREFIX}ended`;
/** How long an event made by one VM's pull is recognised when another's makes it again. */
const SAME_EVENT_S = 6 * 3_600;
/** How many due deliveries one lease gives a process. */
const LEASED_AT_ONCE = 10;

// KEYS: due, the lease's own key, the subscriptions held. ARGV: now, until (the visibility
// timeout's end), limit, the prefix of a subscription's held set, then the subscriptions to skip.
// Returns the lease's until, then the members leased; asked again under the same key, that lease's
// until and those of its members still invisible by it. A skipped (paused) subscription's members
// leave the due for a set of their own as the lease meets them, so the deliveries a paused
// subscription keeps waiting are read once, not at every lease; once it is not skipped, they are
// due again as they were. The due are read a page of 100 at a time, oldest first, until enough are
// leased. (The held sets' names are made here: the service runs on one Redis, not a cluster.)
const LEASE = `
local now, visibleAt, limit, heldPrefix = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local skip = {}
for i = 5, #ARGV do skip[ARGV[i]] = true end
local function subscriptionOf(member) return string.match(member, '^(%S+) ') end
local function hold(member, score)
  local subscription = subscriptionOf(member)
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZADD', heldPrefix .. subscription, score, member)
  redis.call('SADD', KEYS[3], subscription)
end
for _, subscription in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  if not skip[subscription] then
    local held = redis.call('ZRANGE', heldPrefix .. subscription, 0, -1, 'WITHSCORES')
    for i = 1, #held, 2 do redis.call('ZADD', KEYS[1], held[i + 1], held[i]) end
    redis.call('DEL', heldPrefix .. subscription)
    redis.call('SREM', KEYS[3], subscription)
  end
end
local earlier = redis.call('LRANGE', KEYS[2], 0, -1)
if #earlier > 0 then
  local answer = { earlier[1] }
  for i = 2, #earlier do
    if tonumber(redis.call('ZSCORE', KEYS[1], earlier[i])) == tonumber(earlier[1]) then
      if skip[subscriptionOf(earlier[i])] then hold(earlier[i], now) else answer[#answer + 1] = earlier[i] end
    end
  end
  return answer
end
local leased = {}
repeat
  -- Those leased or held leave the due range: each page starts at its beginning.
  local page = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, 100)
  for i = 1, #page, 2 do
    if skip[subscriptionOf(page[i])] then
      hold(page[i], page[i + 1])
    elseif #leased < limit then
      redis.call('ZADD', KEYS[1], visibleAt, page[i])
      leased[#leased + 1] = page[i]
    end
  end
until #leased >= limit or #page < 200
if #leased > 0 then
  redis.call('RPUSH', KEYS[2], visibleAt, unpack(leased))
  redis.call('PEXPIRE', KEYS[2], tonumber(visibleAt) - tonumber(now))
end
return { visibleAt, unpack(leased) }
`;

type Scripted = Redis & {
  gdsWebhookLease(due: string, lease: string, held: string, ...args: string[]): Promise<string[]>;
};

const deliveryKey = (id: string) => `${PREFIX}d:${id}`;
const subscriptionKey = (id: string) => `${PREFIX}sub:${id}`;
const heldKey = (subscription: string) => `${PREFIX}held:${subscription}`;
const dueMember = (d: Delivery) => `${d.subscription} ${d.id}`;

// An event's dedupe key: the subscription, the type and the data, but not when each VM's pull
// ingested it, so that two VMs' copies of the same event have the same key.
function dedupeKey(d: Delivery): string {
  const { ingested_at: _ingested, ...data } = d.event.data;
  return createHash("sha256")
    .update(JSON.stringify([d.subscription, d.event.type, data]))
    .digest("hex");
}

function parse(text: string | null): Delivery | undefined {
  return text === null ? undefined : (JSON.parse(text) as Delivery);
}

/** Redis's outbox; the subscriptions are read from DATA_DIR's copy, which Redis's document keeps current. */
export class RedisOutbox implements OutboxStore {
  readonly #redis: Scripted;
  readonly #dataDir: string;
  #unanswered: string | undefined;

  constructor(client: Redis, dataDir: string) {
    this.#redis = client as Scripted;
    this.#redis.defineCommand("gdsWebhookLease", { numberOfKeys: 3, lua: LEASE });
    this.#dataDir = dataDir;
  }

  async enqueue(event: WebhookEvent, options?: EnqueueOptions): Promise<Delivery[]> {
    const made = deliveriesFor(this.#dataDir, event, options);
    for (const d of made) await this.save(d);
    return made;
  }

  async lease(now: number, visibilityMs: number, skip: ReadonlySet<string>): Promise<Lease> {
    // A lease whose answer never came (a command timed out while Redis was busy, and ran later) is
    // asked again under its key: its deliveries are attempted now, not after their visibility timeout.
    const key = (this.#unanswered ??= `${PREFIX}lease:${randomBytes(12).toString("base64url")}`);
    // Ten attempts in a row, each with its visibility timeout.
    const until = now + visibilityMs * LEASED_AT_ONCE;
    const [leaseUntil, ...members] = await this.#redis.gdsWebhookLease(
      DUE,
      key,
      HELD,
      String(now),
      String(until),
      String(LEASED_AT_ONCE),
      `${this.#redis.options.keyPrefix ?? ""}${heldKey("")}`,
      ...skip,
    );
    const deliveries = await this.#read(members.map((m) => m.slice(m.indexOf(" ") + 1)));
    this.#unanswered = undefined;
    return { deliveries, until: Number(leaseUntil) };
  }

  async save(d: Delivery): Promise<void> {
    const batch = this.#redis
      .multi()
      .set(deliveryKey(d.id), JSON.stringify(d))
      .zadd(subscriptionKey(d.subscription), d.order, d.id);
    if (d.state === "pending") batch.zadd(DUE, Date.parse(d.next_at), dueMember(d));
    else batch.zrem(DUE, dueMember(d)).zrem(heldKey(d.subscription), dueMember(d)).hincrby(ENDED, d.state, 1);
    await batch.exec();
    if (d.state !== "pending") await this.#prune(d.subscription);
  }

  async nextDue(): Promise<number | null> {
    const [, score] = await this.#redis.zrange(DUE, 0, 0, "WITHSCORES");
    return score === undefined ? null : Number(score);
  }

  async delivery(id: string): Promise<Delivery | undefined> {
    return parse(await this.#redis.get(deliveryKey(id)));
  }

  async deliveriesOf(subscription: string, limit: number): Promise<Delivery[]> {
    return this.#read(await this.#redis.zrevrange(subscriptionKey(subscription), 0, limit - 1));
  }

  async resend(id: string, now: number): Promise<Delivery> {
    const found = await this.delivery(id);
    if (found === undefined || found.state === "pending")
      throw new RangeError(`No ended delivery has the id "${id}"`);
    const again: Delivery = { ...found, state: "pending", next_at: new Date(now).toISOString() };
    await this.save(again);
    return again;
  }

  async counts(): Promise<DeliveryCounts> {
    const [due, held, ended] = await Promise.all([
      this.#redis.zcard(DUE),
      this.#redis.smembers(HELD),
      this.#redis.hgetall(ENDED),
    ]);
    let pending = due;
    for (const subscription of held) pending += await this.#redis.zcard(heldKey(subscription));
    const counts: DeliveryCounts = { pending, delivered: 0, failed: 0, gone: 0 };
    for (const state of ["delivered", "failed", "gone"] as const) counts[state] = Number(ended[state] ?? 0);
    return counts;
  }

  /** Moves DATA_DIR's outbox (the pull's events) in; an event another VM's pull made within 6 hours is dropped. */
  async drainFileOutbox(): Promise<number> {
    let moved = 0;
    for (const d of pendingDeliveries(this.#dataDir)) {
      const fresh = d.event.type === "webhook.test" || (await this.#firstMade(d));
      // Already in (a move whose answer was lost): kept as it is now, perhaps delivered since.
      if (fresh && (await this.#redis.exists(deliveryKey(d.id))) === 0) {
        await this.save(d);
        moved += 1;
      }
      dropPending(this.#dataDir, d.id);
    }
    return moved;
  }

  // Whether no other VM's pull made this event within 6 hours. The mark names the delivery that
  // set it, so a mark set by a command whose answer was lost (Redis busy) is known as this one's.
  async #firstMade(d: Delivery): Promise<boolean> {
    const mark = `${PREFIX}made:${dedupeKey(d)}`;
    if ((await this.#redis.set(mark, d.id, "EX", SAME_EVENT_S, "NX")) === "OK") return true;
    return (await this.#redis.get(mark)) === d.id;
  }

  // A subscription's oldest ended deliveries past the newest KEPT_PER_SUBSCRIPTION are let go.
  async #prune(subscription: string): Promise<void> {
    const key = subscriptionKey(subscription);
    const extra = (await this.#redis.zcard(key)) - KEPT_PER_SUBSCRIPTION;
    if (extra <= 0) return;
    for (const id of await this.#redis.zrange(key, 0, extra - 1)) {
      const member = `${subscription} ${id}`;
      const [due, held] = await Promise.all([
        this.#redis.zscore(DUE, member),
        this.#redis.zscore(heldKey(subscription), member),
      ]);
      if (due !== null || held !== null) continue; // still pending
      await this.#redis.multi().del(deliveryKey(id)).zrem(key, id).exec();
    }
  }

  async #read(ids: readonly string[]): Promise<Delivery[]> {
    if (ids.length === 0) return [];
    const texts = await this.#redis.mget(...ids.map(deliveryKey));
    return texts.flatMap((t) => parse(t) ?? []);
  }
}

/**
 * Everything shared in Redis: `documents` must be Redis's (`shared/shared-documents.ts`). The
 * sealing keys are this VM's own, checked against Redis's record of them (`redis-sealing.ts`).
 */
export function redisWebhookStores(
  client: Redis,
  dataDir: string,
  documents: DocumentStore,
  options: { sealKey?: string; log?: (line: string) => void } = {},
): WebhookStores {
  const source = { dataDir, sealKey: options.sealKey };
  return {
    dataDir,
    documents,
    outbox: new RedisOutbox(client, dataDir),
    // Read and checked each time (a key file put right takes effect without a restart).
    sealingKeys: () => checkedSealingKeys(client, source, options.log ?? (() => {})),
    resealed: (id) => recordSealingKey(client, id),
  };
}
