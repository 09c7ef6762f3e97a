/**
 * DATA_DIR's log of ended deliveries: one file per delivery under
 * `webhooks/log/<subscription>/`, the newest KEPT_PER_SUBSCRIPTION of each subscription kept (as
 * Redis keeps them), so that a service delivering for years reads a bounded log; how many ever
 * ended in each way is counted apart, in `webhooks/ended.json`, as Redis counts them in a hash.
 * A log an earlier version wrote flat (`webhooks/log/<id>.json`) is moved into its subscriptions'
 * folders the first time the log is used.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { fsyncDirectory, writeFileAtomic } from "../files/atomic-write.ts";
import { type Delivery, DELIVERY_FILE, outboxDir, readDeliveries, writePending } from "./outbox.ts";
import { SUBSCRIPTION_ID, WEBHOOKS_DIR } from "./subscriptions.ts";

/** How many ended deliveries of one subscription are kept, newest first (DATA_DIR's and Redis's). */
export const KEPT_PER_SUBSCRIPTION = 1_000;

/**
 * How many more than KEPT_PER_SUBSCRIPTION a subscription's folder may hold before its oldest are
 * let go: the folder is read whole to prune it, so it is read once every hundred deliveries, not
 * after each.
 */
export const PRUNE_SLACK = 100;

/** How many deliveries ever ended in each way. */
export type EndedCounts = Record<Exclude<Delivery["state"], "pending">, number>;

const EndedSchema = v.object({ delivered: v.number(), failed: v.number(), gone: v.number() });

const logDir = (dataDir: string) => join(dataDir, WEBHOOKS_DIR, "log");
const endedFile = (dataDir: string) => join(dataDir, WEBHOOKS_DIR, "ended.json");

/** Writes a delivery after an attempt: pending, it stays in the outbox; ended, it moves to the log. */
export function saveDelivery(dataDir: string, delivery: Delivery): void {
  const file = `${delivery.id}.json`;
  writePending(dataDir, delivery);
  if (delivery.state === "pending") return;
  settleFlatLog(dataDir);
  const folder = join(logDir(dataDir), delivery.subscription);
  mkdirSync(folder, { recursive: true });
  renameSync(join(outboxDir(dataDir), file), join(folder, file));
  fsyncDirectory(folder);
  countEnded(dataDir, delivery.state);
  prune(folder);
}

/** A subscription's ended deliveries, newest first. */
export function loggedDeliveries(dataDir: string, subscription: string): Delivery[] {
  if (!SUBSCRIPTION_ID.test(subscription)) return [];
  settleFlatLog(dataDir);
  return newestFirst(readDeliveries(join(logDir(dataDir), subscription)));
}

/** Every ended delivery, newest first. */
export function deliveryLog(dataDir: string): Delivery[] {
  settleFlatLog(dataDir);
  return newestFirst(subscriptionFolders(dataDir).flatMap((folder) => readDeliveries(folder)));
}

/** One ended delivery, by its id. */
export function loggedDelivery(dataDir: string, id: string): Delivery | undefined {
  if (!DELIVERY_FILE.test(`${id}.json`)) return undefined;
  settleFlatLog(dataDir);
  for (const folder of subscriptionFolders(dataDir)) {
    if (!existsSync(join(folder, `${id}.json`))) continue;
    return readDeliveries(folder).find((d) => d.id === id);
  }
  return undefined;
}

/** Puts an ended delivery back in the outbox, due at once, with the same `webhook-id` ("resend"). */
export function resend(dataDir: string, id: string, now = Date.now()): Delivery {
  const found = loggedDelivery(dataDir, id);
  if (found === undefined) throw new RangeError(`No ended delivery has the id "${id}"`);
  const again: Delivery = { ...found, state: "pending", next_at: new Date(now).toISOString() };
  writePending(dataDir, again);
  rmSync(join(logDir(dataDir), found.subscription, `${id}.json`), { force: true });
  return again;
}

/**
 * How many deliveries ever ended in each way. Counted from the log the first time (a log an
 * earlier version kept whole), and again should the count's file be damaged.
 */
export function endedCounts(dataDir: string): EndedCounts {
  return readCounts(dataDir) ?? countLog(dataDir);
}

// One more ended in `state` (the delivery already in the log, so a count of the log includes it).
function countEnded(dataDir: string, state: keyof EndedCounts): void {
  let counts = readCounts(dataDir);
  if (counts === undefined) counts = countLog(dataDir);
  else counts[state] += 1;
  writeFileAtomic(endedFile(dataDir), JSON.stringify(counts) + "\n");
}

function readCounts(dataDir: string): EndedCounts | undefined {
  try {
    return v.parse(EndedSchema, JSON.parse(readFileSync(endedFile(dataDir), "utf8")));
  } catch {
    return undefined; // none yet, or damaged
  }
}

function countLog(dataDir: string): EndedCounts {
  const counts: EndedCounts = { delivered: 0, failed: 0, gone: 0 };
  for (const d of deliveryLog(dataDir)) if (d.state !== "pending") counts[d.state] += 1;
  return counts;
}

// The oldest of a subscription's ended deliveries past the newest KEPT_PER_SUBSCRIPTION are let
// go, once the folder holds PRUNE_SLACK more.
function prune(folder: string): void {
  const names = readdirSync(folder).filter((name) => DELIVERY_FILE.test(name));
  if (names.length <= KEPT_PER_SUBSCRIPTION + PRUNE_SLACK) return;
  for (const old of newestFirst(readDeliveries(folder)).slice(KEPT_PER_SUBSCRIPTION))
    rmSync(join(folder, `${old.id}.json`), { force: true });
}

function newestFirst(deliveries: Delivery[]): Delivery[] {
  return deliveries.sort((a, b) => b.order - a.order);
}

function subscriptionFolders(dataDir: string): string[] {
  try {
    return readdirSync(logDir(dataDir))
      .filter((name) => SUBSCRIPTION_ID.test(name))
      .map((name) => join(logDir(dataDir), name));
  } catch {
    return [];
  }
}

// Moves the deliveries of a flat log (an earlier version's) into their subscriptions' folders; a
// file that cannot be read stays where it is, as it was (never read, as before).
function settleFlatLog(dataDir: string): void {
  let names: string[];
  try {
    names = readdirSync(logDir(dataDir)).filter((name) => DELIVERY_FILE.test(name));
  } catch {
    return;
  }
  if (names.length === 0) return;
  const byId = new Map(readDeliveries(logDir(dataDir)).map((d) => [d.id, d]));
  for (const name of names) {
    const delivery = byId.get(name.slice(0, -".json".length));
    if (delivery === undefined || !SUBSCRIPTION_ID.test(delivery.subscription)) continue;
    const folder = join(logDir(dataDir), delivery.subscription);
    mkdirSync(folder, { recursive: true });
    try {
      renameSync(join(logDir(dataDir), name), join(folder, name));
    } catch (error) {
      // Another process moved it first.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  fsyncDirectory(logDir(dataDir));
}
