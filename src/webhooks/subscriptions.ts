/**
 * Webhook subscriptions (docs/webhooks.md), per account, in `DATA_DIR/webhooks/subscriptions.json`,
 * replaced atomically under a lock: a URL, the event types wanted (with an optional list of
 * datasets), enabled or paused (by its owner, by a 410, or after failing for 24 hours), and its
 * signing secrets, sealed (`sealed-secret.ts`). A rotated secret keeps the old one valid, and
 * signing, for 24 hours.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { parseDocument } from "../files/json-document.ts";
import { withLock, withLockAsync } from "../files/lock-file.ts";
import { seal, sealingKey, unseal } from "./sealed-secret.ts";
import { newSigningSecret } from "./signature.ts";

export const WEBHOOKS_DIR = "webhooks";
const FILE = "subscriptions.json";
const LOCK = "subscriptions.lock";
const KEY_FILE = "seal.key";
/** How long a rotated secret stays valid beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** The event types a subscription may ask for. */
export const EVENT_TYPES = [
  "data.published",
  "forecast.issued",
  "grid_stress.band_changed",
  "load_reduction.started",
  "load_reduction.ended",
  "source.late",
  "source.stopped",
  "source.resumed",
  "webhook.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const SubscriptionSchema = v.object({
  id: v.pipe(v.string(), v.regex(/^wh_[0-9a-f]{16}$/)),
  account: v.string(),
  url: v.string(),
  events: v.array(v.picklist(EVENT_TYPES)),
  datasets: v.optional(v.array(v.string())),
  enabled: v.boolean(),
  paused: v.optional(v.object({ at: v.string(), why: v.string() })),
  created: v.string(),
  failing_since: v.optional(v.string()),
  secrets: v.array(v.object({ sealed: v.string(), created: v.string(), expires: v.optional(v.string()) })),
});
const DocumentSchema = v.object({ version: v.literal(1), subscriptions: v.array(SubscriptionSchema) });

/** One subscription as stored. */
export type Subscription = v.InferOutput<typeof SubscriptionSchema>;

const dirOf = (dataDir: string) => join(dataDir, WEBHOOKS_DIR);

/** Every subscription (none when the file does not exist). */
export function readSubscriptions(dataDir: string): Subscription[] {
  const path = join(dirOf(dataDir), FILE);
  if (!existsSync(path)) return [];
  return parseDocument(readFileSync(path, "utf8"), DocumentSchema, path).subscriptions;
}

// The subscriptions changed by `change` and written whole (run under the lock).
function rewrite<T>(dataDir: string, change: (subscriptions: Subscription[]) => T): T {
  const subscriptions = readSubscriptions(dataDir);
  const result = change(subscriptions);
  writeFileAtomic(join(dirOf(dataDir), FILE), JSON.stringify({ version: 1, subscriptions }, null, 1) + "\n");
  return result;
}

/** Changes the subscriptions under the lock and writes them whole; returns what `change` returns. */
export function updateSubscriptions<T>(dataDir: string, change: (subscriptions: Subscription[]) => T): T {
  mkdirSync(dirOf(dataDir), { recursive: true });
  return withLock(join(dirOf(dataDir), LOCK), () => rewrite(dataDir, change));
}

/** `updateSubscriptions` for the server: waiting for the lock never blocks the event loop. */
export function updateSubscriptionsAsync<T>(
  dataDir: string,
  change: (subscriptions: Subscription[]) => T,
): Promise<T> {
  mkdirSync(dirOf(dataDir), { recursive: true });
  return withLockAsync(join(dirOf(dataDir), LOCK), () => rewrite(dataDir, change));
}

/** The subscription of that id, for changing it in `updateSubscriptions`; throws when there is none. */
export function subscriptionOf(subscriptions: Subscription[], id: string): Subscription {
  const found = subscriptions.find((s) => s.id === id);
  if (found === undefined) throw new RangeError(`No webhook subscription has the id "${id}"`);
  return found;
}

/** Creates a subscription; the secret is returned once, never again. */
export async function createSubscription(
  dataDir: string,
  options: {
    account: string;
    url: string;
    events: readonly EventType[];
    datasets?: readonly string[];
    now?: Date;
  },
): Promise<{ subscription: Subscription; secret: string }> {
  const now = (options.now ?? new Date()).toISOString();
  const secret = newSigningSecret();
  const subscription: Subscription = {
    id: `wh_${randomBytes(8).toString("hex")}`,
    account: options.account,
    url: options.url,
    events: [...options.events],
    ...(options.datasets === undefined ? {} : { datasets: [...options.datasets] }),
    enabled: true,
    created: now,
    secrets: [{ sealed: seal(sealingKey(join(dirOf(dataDir), KEY_FILE)), secret), created: now }],
  };
  await updateSubscriptionsAsync(dataDir, (all) => all.push(subscription));
  return { subscription, secret };
}

/** A new secret for a subscription; the old ones stay valid for `ROTATION_OVERLAP_MS`. */
export async function rotateSecret(dataDir: string, id: string, now = new Date()): Promise<string> {
  const secret = newSigningSecret();
  const key = sealingKey(join(dirOf(dataDir), KEY_FILE));
  await updateSubscriptionsAsync(dataDir, (all) => {
    const s = subscriptionOf(all, id);
    const expires = new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString();
    s.secrets = [
      ...s.secrets
        .filter((old) => old.expires === undefined || Date.parse(old.expires) > now.getTime())
        .map((old) => ({ ...old, expires: old.expires ?? expires })),
      { sealed: seal(key, secret), created: now.toISOString() },
    ];
  });
  return secret;
}

/** Pauses a subscription by its owner's wish (deliveries wait in the outbox). */
export function pause(subscription: Subscription, now: Date): void {
  subscription.paused ??= { at: now.toISOString(), why: "paused by its owner" };
}

/** Enables a subscription again, whoever paused or disabled it; its waiting deliveries go out. */
export function resume(subscription: Subscription): void {
  delete subscription.paused;
  delete subscription.failing_since;
  subscription.enabled = true;
}

/** A subscription's state in words: enabled, paused (and why) or disabled. */
export function stateOf(subscription: Subscription): string {
  const why = subscription.paused === undefined ? "" : ` (${subscription.paused.why})`;
  if (!subscription.enabled) return `disabled${why}`;
  return subscription.paused === undefined ? "enabled" : `paused${why}`;
}

/** The secrets a subscription signs with at `now`: the newest, and any rotated one still valid. */
export function signingSecrets(dataDir: string, subscription: Subscription, now: number): string[] {
  const key = sealingKey(join(dirOf(dataDir), KEY_FILE));
  return subscription.secrets
    .filter((s) => s.expires === undefined || Date.parse(s.expires) > now)
    .map((s) => unseal(key, s.sealed));
}
