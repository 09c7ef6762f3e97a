/**
 * Sends the outbox's deliveries (docs/webhooks.md), as the Standard Webhooks specification says:
 * `webhook-id` (the same for every attempt), `webhook-timestamp`, `webhook-signature`; a 2xx is
 * delivered, a 410 disables the subscription, a 429 or 503 with `Retry-After` is tried again when
 * it says, anything else (an error, a timeout, a redirect, which is never followed) on the
 * specification's schedule with jitter: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h,
 * 24 h, then failed. A subscription failing for 24 hours is paused. A request has 15 s, and reads
 * at most 64 KB of the answer; up to 8 subscriptions are sent to at once, each in its events'
 * order, so a slow receiver delays only its own. Deliveries run beside the server, never in an
 * API answer's way.
 */
import { VERSION } from "../version.ts";
import type { DestinationRules } from "./destination.ts";
import type { Delivery } from "./outbox.ts";
import { signatures } from "./signature.ts";
import {
  currentSubscriptions,
  readSubscriptions,
  signingSecrets,
  type Subscription,
  updateSubscriptions,
} from "./subscriptions.ts";
import { type Answer, post } from "./webhook-post.ts";
import type { WebhookStores } from "./webhook-stores.ts";

/** The specification's schedule: the wait before each attempt after the first, in ms. */
export const RETRY_SCHEDULE_MS = [
  0, 5e3, 300e3, 1_800e3, 7_200e3, 18_000e3, 36_000e3, 50_400e3, 72_000e3, 86_400e3,
];
/** A subscription failing this long is paused. */
export const PAUSE_AFTER_MS = 24 * 3_600_000;
/** How many subscriptions are sent to at once. */
const LANES = 8;

export interface DelivererOptions {
  readonly webhooks: WebhookStores;
  readonly rules: DestinationRules;
  readonly now?: () => number;
  /** The waits before the retries, in ms (`RETRY_SCHEDULE_MS` by default). */
  readonly scheduleMs?: readonly number[];
  readonly timeoutMs?: number;
  /** Each attempt's outcome, for the metrics and the log. */
  readonly onAttempt?: (outcome: "delivered" | "retry" | "failed" | "gone", delivery: Delivery) => void;
}

/**
 * Sends what is due. Every delivery leased from the outbox is attempted by this process alone
 * (`outbox-store.ts`) until saved (its ack); a process killed during an attempt leaves it to be
 * leased again once its visibility timeout ends.
 */
export class Deliverer {
  readonly #options: DelivererOptions;
  readonly #webhooks: WebhookStores;
  readonly #now: () => number;
  readonly #schedule: readonly number[];
  readonly #timeoutMs: number;
  /**
   * What a failed round left untried or unacked (a write the outbox did not take: Redis slow or
   * away, a full disk), for the next round, while this process's lease on them lasts.
   */
  #unfinished: { delivery: Delivery; until: number }[] = [];

  constructor(options: DelivererOptions) {
    this.#options = options;
    this.#webhooks = options.webhooks;
    this.#now = options.now ?? Date.now;
    this.#schedule = options.scheduleMs ?? RETRY_SCHEDULE_MS;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  /**
   * Attempts every delivery that is due; returns when each has its outcome. When an outcome cannot
   * be written, the round rejects, and that delivery and those after it in its subscription's order
   * go first in the next round rather than wait out their visibility timeout.
   */
  async deliverDue(): Promise<number> {
    // Theirs wait while a subscription is paused or disabled; each lease's visibility timeout is as long as an attempt may take.
    const waiting = new Set(
      readSubscriptions(this.#webhooks.dataDir)
        .filter((s) => !s.enabled || s.paused !== undefined)
        .map((s) => s.id),
    );
    const now = this.#now();
    const visibilityMs = this.#timeoutMs + 5_000;
    const stillLeased = this.#unfinished;
    this.#unfinished = [];
    let due: Delivery[];
    let leaseUntil: number;
    try {
      const left = await this.#unrecorded(stillLeased, now, waiting);
      const lease = await this.#webhooks.outbox.lease(now, visibilityMs, waiting);
      due = [...left, ...lease.deliveries.filter((d) => !left.some((l) => l.id === d.id))];
      leaseUntil = lease.until;
    } catch (error) {
      this.#unfinished = stillLeased;
      throw error;
    }
    // One lane per subscription, in the order its events were made; a slow receiver holds only its own.
    const bySubscription = new Map<string, Delivery[]>();
    for (const d of due)
      bySubscription.set(d.subscription, [...(bySubscription.get(d.subscription) ?? []), d]);
    const queues = [...bySubscription.values()];
    const failures: unknown[] = [];
    // Each is this process's until its lease's visibility timeout ends (one still leased from an
    // earlier round keeps that lease's): not a moment less, or it would wait out the rest unsent.
    const until = new Map(stillLeased.map((c) => [c.delivery.id, c.until]));
    const lane = async () => {
      for (let queue = queues.shift(); queue !== undefined; queue = queues.shift()) {
        for (const [i, delivery] of queue.entries()) {
          try {
            await this.#attempt(delivery);
          } catch (error) {
            failures.push(error);
            const rest = queue.slice(i);
            this.#unfinished.push(
              ...rest.map((d) => ({ delivery: d, until: until.get(d.id) ?? leaseUntil })),
            );
            break;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(LANES, queues.length) }, lane));
    if (failures.length > 0) throw failures[0];
    return due.length;
  }

  // Of what a failed round left, as stored now, those still held by this process and whose outcome
  // is not recorded: one recorded after all (a write that landed late) is the outbox's again.
  async #unrecorded(
    stillLeased: readonly { delivery: Delivery; until: number }[],
    now: number,
    waiting: ReadonlySet<string>,
  ): Promise<Delivery[]> {
    const left: Delivery[] = [];
    for (const { delivery, until } of stillLeased) {
      if (until <= now || waiting.has(delivery.subscription)) continue;
      const stored = await this.#webhooks.outbox.delivery(delivery.id);
      if (stored?.state === "pending" && stored.attempts.length === delivery.attempts.length)
        left.push(stored);
    }
    return left;
  }

  /** When the next pending delivery is due (UTC ms), or null. */
  nextDue(): Promise<number | null> {
    return this.#webhooks.outbox.nextDue();
  }

  async #attempt(delivery: Delivery): Promise<void> {
    const sub = await this.#subscription(delivery.subscription);
    if (sub === undefined)
      return this.#end(delivery, "failed", { status: null, error: "the subscription was deleted" }, 0);
    const started = this.#now();
    const timestamp = Math.floor(started / 1000);
    const body = JSON.stringify(delivery.event);
    const secrets = signingSecrets(await this.#webhooks.sealingKeys(), sub, started);
    const headers = {
      "content-type": "application/json",
      "user-agent": `grid-data-service/${VERSION} (webhooks)`,
      "webhook-id": delivery.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatures(secrets, delivery.id, timestamp, body),
    };
    const answer = await post(sub, body, headers, this.#options.rules, this.#timeoutMs);
    const ms = this.#now() - started;
    if (answer.status !== null && answer.status >= 200 && answer.status < 300)
      return this.#end(delivery, "delivered", answer, ms);
    if (answer.status === 410) {
      const at = new Date(this.#now()).toISOString();
      await this.#change(sub.id, (s) => {
        s.enabled = false;
        s.paused = { at, why: "the receiver answered 410 Gone" };
      });
      return this.#end(delivery, "gone", answer, ms);
    }
    return this.#retry(delivery, answer, ms);
  }

  // DATA_DIR's copy, or, when it has not yet followed a subscription just made on another VM, the
  // store's own text: a delivery is never failed for a subscription that exists.
  async #subscription(id: string): Promise<Subscription | undefined> {
    return (
      readSubscriptions(this.#webhooks.dataDir).find((s) => s.id === id) ??
      (await currentSubscriptions(this.#webhooks.documents)).find((s) => s.id === id)
    );
  }

  // Changes one subscription, if it still exists.
  #change(id: string, fn: (s: Subscription) => void): Promise<void> {
    return updateSubscriptions(this.#webhooks.documents, (all) => {
      const s = all.find((x) => x.id === id);
      if (s !== undefined) fn(s);
    });
  }

  async #end(delivery: Delivery, state: Delivery["state"], answer: Answer, ms: number): Promise<void> {
    const ended = { ...delivery, state, attempts: [...delivery.attempts, this.#record(answer, ms)] };
    await this.#webhooks.outbox.save(ended);
    if (state === "delivered") await this.#healthy(delivery.subscription);
    this.#options.onAttempt?.(state === "pending" ? "retry" : state, ended);
  }

  #record(answer: Answer, ms: number) {
    return {
      at: new Date(this.#now()).toISOString(),
      status: answer.status,
      ...(answer.error === undefined ? {} : { error: answer.error }),
      ms,
    };
  }

  // Another attempt when the server asked (429, 503) or the schedule says; past the schedule, failed.
  async #retry(delivery: Delivery, answer: Answer, ms: number): Promise<void> {
    const attempts = [...delivery.attempts, this.#record(answer, ms)];
    const asked = answer.status === 429 || answer.status === 503 ? answer.retryAfterMs : undefined;
    const wait = asked ?? this.#schedule[attempts.length];
    if (wait === undefined) return this.#end(delivery, "failed", answer, ms);
    const jitter = asked === undefined ? wait * 0.1 * (Math.random() * 2 - 1) : 0;
    const next = { ...delivery, attempts, next_at: new Date(this.#now() + wait + jitter).toISOString() };
    await this.#webhooks.outbox.save(next);
    await this.#failing(delivery.subscription);
    this.#options.onAttempt?.("retry", next);
  }

  // A subscription failing since more than a day is paused.
  #failing(id: string): Promise<void> {
    const now = this.#now();
    return this.#change(id, (s) => {
      s.failing_since ??= new Date(now).toISOString();
      if (now - Date.parse(s.failing_since) > PAUSE_AFTER_MS && s.paused === undefined) {
        s.paused = { at: new Date(now).toISOString(), why: "its deliveries have failed for 24 hours" };
      }
    });
  }

  async #healthy(id: string): Promise<void> {
    if (readSubscriptions(this.#webhooks.dataDir).find((s) => s.id === id)?.failing_since === undefined)
      return;
    await this.#change(id, (s) => delete s.failing_since);
  }
}
