/**
 * The durable outbox of webhook deliveries (docs/webhooks.md): one JSON file per delivery under
 * `DATA_DIR/webhooks/outbox/`, written atomically when an event is made (by the pull, or a test
 * event) and rewritten after every attempt; a delivery that ended (delivered, failed for good,
 * or refused with 410) moves to the log (`delivery-log.ts`). A killed process loses nothing: the
 * file names the delivery's `webhook-id`, kept by every attempt, and when it is next due.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { fsyncDirectory, writeFileAtomic } from "../files/atomic-write.ts";
import { newMessageId } from "./signature.ts";
import {
  type EventType,
  reachesBand,
  readSubscriptions,
  type Subscription,
  WEBHOOKS_DIR,
} from "./subscriptions.ts";

const OUTBOX = "outbox";
/** The events a subscription's `min_band` applies to: those that move between bands. */
const BANDED = new Set(["grid_stress.band_changed", "outlook.changed"]);

/** A delivery's file, named by its id (`msg_` and 32 hex digits), in the outbox and the log. */
export const DELIVERY_FILE = /^msg_[0-9a-f]{32}\.json$/;

const DeliverySchema = v.object({
  id: v.pipe(v.string(), v.regex(/^msg_[0-9a-f]{32}$/)),
  subscription: v.string(),
  event: v.object({ type: v.string(), timestamp: v.string(), data: v.record(v.string(), v.unknown()) }),
  created: v.string(),
  /** The order events were made in, for deliveries due at the same instant. */
  order: v.number(),
  next_at: v.string(),
  state: v.picklist(["pending", "delivered", "failed", "gone"]),
  attempts: v.array(
    v.object({
      at: v.string(),
      status: v.nullable(v.number()),
      error: v.optional(v.string()),
      ms: v.number(),
    }),
  ),
});

/** One delivery of one event to one subscription. */
export type Delivery = v.InferOutput<typeof DeliverySchema>;

/** An event: its type and its small data (with the API URL of its records, never the records). */
export interface WebhookEvent {
  readonly type: EventType;
  readonly data: Readonly<Record<string, unknown>>;
}

/** When an event is made, for whom only (a test event), and among which subscriptions (DATA_DIR's copy by default). */
export interface EnqueueOptions {
  readonly now?: number;
  readonly only?: string;
  readonly subscriptions?: readonly Subscription[];
}

// Microseconds since the epoch, rising within this process: events made later sort later.
let lastOrder = 0;
const nextOrder = () => (lastOrder = Math.max(lastOrder + 1, Date.now() * 1000));

/** Where pending deliveries wait, one file each. */
export const outboxDir = (dataDir: string) => join(dataDir, WEBHOOKS_DIR, OUTBOX);

/**
 * The deliveries of `event`, not yet kept: one for every enabled subscription that wants it (a
 * `dataset` in its data must be among the subscription's datasets, when it names some; a band
 * change must reach its threshold, when it has one), or only for `only`.
 */
export function deliveriesFor(
  dataDir: string,
  event: WebhookEvent,
  options: EnqueueOptions = {},
): Delivery[] {
  const now = new Date(options.now ?? Date.now()).toISOString();
  const dataset = typeof event.data.dataset === "string" ? event.data.dataset : undefined;
  const wanting = (options.subscriptions ?? readSubscriptions(dataDir)).filter(
    (s) =>
      (options.only === undefined ? s.enabled && s.events.includes(event.type) : s.id === options.only) &&
      (dataset === undefined || s.datasets === undefined || s.datasets.includes(dataset)) &&
      (!BANDED.has(event.type) || reachesBand(s.min_band, event.data.from, event.data.to)),
  );
  return wanting.map((s) => ({
    id: newMessageId(),
    subscription: s.id,
    event: { type: event.type, timestamp: now, data: { ...event.data } },
    created: now,
    order: nextOrder(),
    next_at: now,
    state: "pending",
    attempts: [],
  }));
}

/** Puts `event` in DATA_DIR's outbox (`deliveriesFor` says for whom); returns the deliveries made. */
export function enqueue(dataDir: string, event: WebhookEvent, options: EnqueueOptions = {}): Delivery[] {
  const made = deliveriesFor(dataDir, event, options);
  if (made.length === 0) return [];
  mkdirSync(outboxDir(dataDir), { recursive: true });
  for (const delivery of made)
    writeFileAtomic(join(outboxDir(dataDir), `${delivery.id}.json`), JSON.stringify(delivery) + "\n");
  fsyncDirectory(outboxDir(dataDir));
  return made;
}

/** Takes a delivery out of DATA_DIR's outbox (moved to another, `outbox-store.ts`). */
export function dropPending(dataDir: string, id: string): void {
  rmSync(join(outboxDir(dataDir), `${id}.json`), { force: true });
}

/** The deliveries in a folder, one file each; a file being replaced or damaged is passed over. */
export function readDeliveries(dir: string): Delivery[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => DELIVERY_FILE.test(n));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      return [v.parse(DeliverySchema, JSON.parse(readFileSync(join(dir, name), "utf8")))];
    } catch {
      return []; // a file being replaced, or damaged: not touched here
    }
  });
}

/** The pending deliveries, soonest due first, then in the order their events were made. */
export function pendingDeliveries(dataDir: string): Delivery[] {
  return readDeliveries(outboxDir(dataDir)).sort((a, b) =>
    a.next_at === b.next_at ? a.order - b.order : a.next_at < b.next_at ? -1 : 1,
  );
}

/** Writes a delivery into the outbox, whole or not at all. */
export function writePending(dataDir: string, delivery: Delivery): void {
  mkdirSync(outboxDir(dataDir), { recursive: true });
  writeFileAtomic(join(outboxDir(dataDir), `${delivery.id}.json`), JSON.stringify(delivery) + "\n");
}
