/**
 * Where deliveries wait and are kept, as the deliverer, the dashboard, the CLI and the metrics see
 * it: DATA_DIR's outbox (`fileOutbox`, on `outbox.ts`'s files), or Redis's (`redis-webhooks.ts`)
 * when the state is shared, into which DATA_DIR's outbox is then emptied (the pull, a separate
 * process without Redis, writes its events there).
 */
import {
  type Delivery,
  enqueue,
  pendingDeliveries,
  type EnqueueOptions,
  type WebhookEvent,
} from "./outbox.ts";
import { endedCounts, loggedDeliveries, loggedDelivery, resend, saveDelivery } from "./delivery-log.ts";

/** The deliveries a lease gives, and when they are visible to every consumer again (UTC ms). */
export interface Lease {
  readonly deliveries: Delivery[];
  readonly until: number;
}

/** How many deliveries ended, by how. */
export type DeliveryCounts = Record<Delivery["state"], number>;

export interface OutboxStore {
  /** Puts `event` in for every enabled subscription wanting it, or for `only`; the deliveries made. */
  enqueue(event: WebhookEvent, options?: EnqueueOptions): Promise<Delivery[]>;
  /**
   * Leases the deliveries due at `now`, soonest first, but none for the subscriptions in `skip`
   * (paused or disabled: theirs wait), for an attempt: they are invisible to every other consumer
   * until saved (the ack), or until the lease's visibility timeout ends (`until`: `visibilityMs`
   * for each attempt the lease may hold; a process killed meanwhile leaves them due again then,
   * with the same `webhook-id`).
   */
  lease(now: number, visibilityMs: number, skip: ReadonlySet<string>): Promise<Lease>;
  /**
   * A delivery after its attempt, acknowledged: pending again at its `next_at` (a retry), or ended
   * and kept in the log; or a new one, made by `enqueue`.
   */
  save(delivery: Delivery): Promise<void>;
  /** When the soonest pending delivery is due (UTC ms), or null. */
  nextDue(): Promise<number | null>;
  /** One delivery, pending or ended, by its id. */
  delivery(id: string): Promise<Delivery | undefined>;
  /** A subscription's deliveries, pending and ended, newest first, at most `limit`. */
  deliveriesOf(subscription: string, limit: number): Promise<Delivery[]>;
  /** Puts an ended delivery back, due at `now`, with the same `webhook-id`; throws a RangeError when there is none. */
  resend(id: string, now: number): Promise<Delivery>;
  /** How many are pending, and how many ended in each way. */
  counts(): Promise<DeliveryCounts>;
  /**
   * Drains DATA_DIR's outbox into this one (Redis only): each event once, by its dedupe key; how
   * many moved.
   */
  drainFileOutbox?(): Promise<number>;
}

/**
 * DATA_DIR's outbox: one process per data directory delivers (`delivery-loop.ts`), so a lease
 * needs no visibility timeout.
 */
export function fileOutbox(dataDir: string): OutboxStore {
  return {
    enqueue: (event, options) => Promise.resolve(enqueue(dataDir, event, options)),
    // A promise that rejects when an ended one cannot be put away (a full disk), as Redis's does.
    lease: (now, visibilityMs, skip) =>
      new Promise((resolve) => {
        const due: Delivery[] = [];
        for (const d of pendingDeliveries(dataDir)) {
          // An ended one, left here by a save cut short between its two steps (the outbox file
          // written, not yet moved into the log: a kill, a full disk): its save is finished, and
          // it is not sent again.
          if (d.state !== "pending") saveDelivery(dataDir, d);
          else if (Date.parse(d.next_at) <= now && !skip.has(d.subscription)) due.push(d);
        }
        resolve({ deliveries: due, until: now + visibilityMs });
      }),
    save: (delivery) => Promise.resolve(saveDelivery(dataDir, delivery)),
    nextDue() {
      const next = pendingDeliveries(dataDir)[0];
      return Promise.resolve(next === undefined ? null : Date.parse(next.next_at));
    },
    delivery: (id) =>
      Promise.resolve(pendingDeliveries(dataDir).find((d) => d.id === id) ?? loggedDelivery(dataDir, id)),
    deliveriesOf(subscription, limit) {
      const pending = pendingDeliveries(dataDir).filter((d) => d.subscription === subscription);
      const all = [...pending, ...loggedDeliveries(dataDir, subscription)];
      return Promise.resolve(all.sort((a, b) => b.order - a.order).slice(0, limit));
    },
    // A promise that rejects when there is none, as Redis's does.
    resend: (id, now) => new Promise((resolve) => resolve(resend(dataDir, id, now))),
    counts: () => Promise.resolve({ pending: pendingDeliveries(dataDir).length, ...endedCounts(dataDir) }),
  };
}
