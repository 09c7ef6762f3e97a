/**
 * Webhook subscriptions (docs/webhooks.md), per account: a URL, the event types wanted (with an
 * optional list of datasets and a grid-stress band threshold), enabled or paused (by its owner, by a 410, or after failing for 24
 * hours), and its signing secrets, sealed (`files/sealing.ts`). A rotated secret keeps the old
 * one valid, and signing, for 24 hours. They are one kept document,
 * `DATA_DIR/webhooks/subscriptions.json`, changed through the document store the program chose
 * (`files/document-store.ts`: DATA_DIR's file under its lock, or Redis's copy), and read from
 * DATA_DIR's copy.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { DocumentStore, KeptFile } from "../files/document-store.ts";
import { parseDocument } from "../files/json-document.ts";
import type { SealingKeys } from "../files/sealing.ts";
import { newSigningSecret } from "./signature.ts";

export const WEBHOOKS_DIR = "webhooks";
/** The subscriptions as a kept document, by its path in DATA_DIR. */
export const SUBSCRIPTIONS_DOCUMENT: KeptFile = {
  name: `${WEBHOOKS_DIR}/subscriptions.json`,
  lock: `${WEBHOOKS_DIR}/subscriptions.lock`,
};
/** How long a rotated secret stays valid beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** The event types a subscription may ask for. */
export const EVENT_TYPES = [
  "data.published",
  "forecast.issued",
  "grid_stress.band_changed",
  "load_reduction.started",
  "load_reduction.ended",
  "outlook.changed",
  "source.late",
  "source.stopped",
  "source.resumed",
  "webhook.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The grid-stress bands, lowest first (`features/stress-formula.ts`), for a subscription's threshold. */
export const STRESS_BAND_NAMES = ["low", "moderate", "high", "critical"] as const;

/**
 * Whether a band change reaches a subscription's threshold: into, out of, or within the bands at
 * or above it. Without a threshold, every change does.
 */
export function reachesBand(minBand: string | undefined, from: unknown, to: unknown): boolean {
  if (minBand === undefined) return true;
  const rank = (band: unknown) => STRESS_BAND_NAMES.indexOf(band as (typeof STRESS_BAND_NAMES)[number]);
  return Math.max(rank(from), rank(to)) >= rank(minBand);
}

/** A subscription's id: `wh_` and 16 hex digits (also the name of its folder in the delivery log). */
export const SUBSCRIPTION_ID = /^wh_[0-9a-f]{16}$/;

const SubscriptionSchema = v.object({
  id: v.pipe(v.string(), v.regex(SUBSCRIPTION_ID)),
  account: v.string(),
  url: v.string(),
  events: v.array(v.picklist(EVENT_TYPES)),
  datasets: v.optional(v.array(v.string())),
  /** `grid_stress.band_changed` and `outlook.changed` only when they reach this band (`reachesBand`). */
  min_band: v.optional(v.picklist(STRESS_BAND_NAMES)),
  enabled: v.boolean(),
  paused: v.optional(v.object({ at: v.string(), why: v.string() })),
  created: v.string(),
  failing_since: v.optional(v.string()),
  secrets: v.array(v.object({ sealed: v.string(), created: v.string(), expires: v.optional(v.string()) })),
});
const DocumentSchema = v.object({ version: v.literal(1), subscriptions: v.array(SubscriptionSchema) });

/** One subscription as stored. */
export type Subscription = v.InferOutput<typeof SubscriptionSchema>;

/** The subscriptions in a document's text; throws, naming `where`, when it is damaged. */
export function parseSubscriptionFile(text: string, where = SUBSCRIPTIONS_DOCUMENT.name): Subscription[] {
  return parseDocument(text, DocumentSchema, where).subscriptions;
}

/** Every subscription in DATA_DIR's copy (none when there is none). */
export function readSubscriptions(dataDir: string): Subscription[] {
  const path = join(dataDir, SUBSCRIPTIONS_DOCUMENT.name);
  if (!existsSync(path)) return [];
  return parseSubscriptionFile(readFileSync(path, "utf8"), path);
}

/**
 * Changes the subscriptions and keeps them whole; returns what `change` returns. `change` may run
 * again when another process changed them meanwhile (Redis), so it only changes what it is given.
 */
export function updateSubscriptions<T>(
  documents: DocumentStore,
  change: (subscriptions: Subscription[]) => T,
): Promise<T> {
  return documents.update(SUBSCRIPTIONS_DOCUMENT, (text) => {
    const subscriptions =
      text === null ? [] : parseSubscriptionFile(text, `${SUBSCRIPTIONS_DOCUMENT.name} of ${documents.dir}`);
    const result = change(subscriptions);
    // None before and none after: nothing is written (a store without subscriptions has no file).
    if (text === null && subscriptions.length === 0) return { text: null, result };
    return { text: JSON.stringify({ version: 1, subscriptions }, null, 1) + "\n", result };
  });
}

/** Every subscription as the document store holds it now (with Redis, Redis's text, not DATA_DIR's copy). */
export async function currentSubscriptions(documents: DocumentStore): Promise<Subscription[]> {
  const text = await documents.read(SUBSCRIPTIONS_DOCUMENT);
  return text === null
    ? []
    : parseSubscriptionFile(text, `${SUBSCRIPTIONS_DOCUMENT.name} of ${documents.dir}`);
}

/** The subscription of that id, for changing it in `updateSubscriptions`; throws when there is none. */
export function subscriptionOf(subscriptions: Subscription[], id: string): Subscription {
  const found = subscriptions.find((s) => s.id === id);
  if (found === undefined) throw new RangeError(`No webhook subscription has the id "${id}"`);
  return found;
}

/** An account that has as many subscriptions as it may: nothing was made. */
export class TooManySubscriptions extends Error {
  constructor(readonly count: number) {
    super(`The account has ${count} webhooks, the most it may have`);
    this.name = "TooManySubscriptions";
  }
}

/**
 * Creates a subscription, its secret sealed under `keys`; the secret is returned once, never again.
 * With `atMost`, an account that already has that many is refused (a TooManySubscriptions), counted
 * inside the write: two processes making the last one at once cannot both make it.
 */
export async function createSubscription(
  documents: DocumentStore,
  keys: SealingKeys,
  options: {
    account: string;
    url: string;
    events: readonly EventType[];
    datasets?: readonly string[];
    minBand?: Subscription["min_band"];
    now?: Date;
    atMost?: number;
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
    ...(options.minBand === undefined ? {} : { min_band: options.minBand }),
    enabled: true,
    created: now,
    secrets: [{ sealed: keys.seal(secret), created: now }],
  };
  await updateSubscriptions(documents, (all) => {
    const count = all.filter((s) => s.account === options.account).length;
    if (options.atMost !== undefined && count >= options.atMost) throw new TooManySubscriptions(count);
    all.push({ ...subscription });
  });
  return { subscription, secret };
}

/** A new secret for a subscription; the old ones stay valid for `ROTATION_OVERLAP_MS`. */
export async function rotateSecret(
  documents: DocumentStore,
  keys: SealingKeys,
  id: string,
  now = new Date(),
): Promise<string> {
  const secret = newSigningSecret();
  const sealed = keys.seal(secret);
  await updateSubscriptions(documents, (all) => {
    const s = subscriptionOf(all, id);
    const expires = new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString();
    s.secrets = [
      ...s.secrets
        .filter((old) => old.expires === undefined || Date.parse(old.expires) > now.getTime())
        .map((old) => ({ ...old, expires: old.expires ?? expires })),
      { sealed, created: now.toISOString() },
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
export function signingSecrets(keys: SealingKeys, subscription: Subscription, now: number): string[] {
  return subscription.secrets
    .filter((s) => s.expires === undefined || Date.parse(s.expires) > now)
    .map((s) => keys.unseal(s.sealed));
}

/**
 * Seals every secret of every subscription again under the first of `keys` (the last step but one of
 * a rotation of the sealing key); throws, changing nothing, when one opens under none of them.
 * Returns how many secrets were sealed again.
 */
export async function resealSecrets(documents: DocumentStore, keys: SealingKeys): Promise<number> {
  return updateSubscriptions(documents, (all) => {
    let count = 0;
    for (const s of all) {
      s.secrets = s.secrets.map((secret) => ({ ...secret, sealed: keys.seal(keys.unseal(secret.sealed)) }));
      count += s.secrets.length;
    }
    return count;
  });
}
