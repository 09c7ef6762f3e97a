/**
 * `npm run --silent webhooks -- COMMAND` (docs/webhooks.md): an operator's subscriptions, their
 * secrets, test events and deliveries, in DATA_DIR. The secret is printed once, at creation and
 * at rotation; a URL is checked as every delivery checks it.
 */
import { checkDestination, type DestinationRules } from "./destination.ts";
import { KEPT_PER_SUBSCRIPTION } from "./delivery-log.ts";
import type { WebhookStores } from "./webhook-stores.ts";
import {
  createSubscription,
  EVENT_TYPES,
  type EventType,
  pause,
  currentSubscriptions,
  resealSecrets,
  resume,
  rotateSecret,
  stateOf,
  STRESS_BAND_NAMES,
  subscriptionOf,
  type Subscription,
  updateSubscriptions,
} from "./subscriptions.ts";

export const WEBHOOKS_USAGE = `Usage: npm run --silent webhooks -- COMMAND
  create --account NAME --url URL [--events TYPE,...] [--datasets ID,...] [--min-band BAND]
                       a subscription; prints its id, then its signing secret (once);
                       --min-band: band changes only when they reach BAND (${STRESS_BAND_NAMES.join(", ")})
  list [--json]        every subscription: id, account, state, events, URL
  rotate ID            a new secret (printed once); the old one signs too for 24 hours
  pause ID | resume ID | delete ID
  test ID              queues a webhook.test event for that subscription
  deliveries ID        its pending and ended deliveries, with every attempt
  resend MSG_ID        sends an ended delivery again, with the same webhook-id
  reseal               seals every secret again under the first sealing key (a rotation's
                       last step but one: docs/webhooks.md, "The sealing key")
Event types: ${EVENT_TYPES.join(", ")} (all but webhook.test by default).
Settings: DATA_DIR, REDIS_URL, WEBHOOK_SEAL_KEY, WEBHOOK_ALLOW_HTTP=1, WEBHOOK_ALLOW_PRIVATE=1.
`;

export interface WebhooksIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

function option(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(`--${name}`);
  return at < 0 ? undefined : argv[at + 1];
}

const list = (value: string | undefined) =>
  value === undefined ? undefined : value.split(",").filter((v) => v !== "");

async function create(
  webhooks: WebhookStores,
  argv: readonly string[],
  rules: DestinationRules,
  io: WebhooksIo,
  known: readonly string[] | undefined,
): Promise<number> {
  const account = option(argv, "account");
  const url = option(argv, "url");
  if (account === undefined || url === undefined) {
    io.stderr("create needs --account NAME and --url URL\n");
    return 2;
  }
  const events = (list(option(argv, "events")) ??
    EVENT_TYPES.filter((t) => t !== "webhook.test")) as EventType[];
  const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0) {
    io.stderr(`Unknown event type ${unknown.join(", ")}; the types are ${EVENT_TYPES.join(", ")}\n`);
    return 2;
  }
  const minBand = option(argv, "min-band");
  if (minBand !== undefined && !(STRESS_BAND_NAMES as readonly string[]).includes(minBand)) {
    io.stderr(`Unknown band ${minBand}; the bands are ${STRESS_BAND_NAMES.join(", ")}\n`);
    return 2;
  }
  const datasets = list(option(argv, "datasets"));
  const strange = known === undefined ? [] : (datasets ?? []).filter((d) => !known.includes(d));
  if (strange.length > 0) {
    io.stderr(`Unknown dataset ${strange.join(", ")}; the datasets are ${known!.join(", ")}\n`);
    return 2;
  }
  try {
    await checkDestination(url, rules);
  } catch (error) {
    io.stderr(`Refused: ${(error as Error).message}\n`);
    return 1;
  }
  const { subscription, secret } = await createSubscription(
    webhooks.documents,
    await webhooks.sealingKeys(),
    {
      account,
      url,
      events,
      ...(datasets ? { datasets } : {}),
      ...(minBand === undefined ? {} : { minBand: minBand as Subscription["min_band"] }),
    },
  );
  io.stdout(
    `Created ${subscription.id} for ${account}: ${url}\nIts signing secret, shown only this once:\n${secret}\n`,
  );
  return 0;
}

async function show(webhooks: WebhookStores, json: boolean, io: WebhooksIo): Promise<number> {
  const all = await currentSubscriptions(webhooks.documents);
  if (json) io.stdout(JSON.stringify(all.map(({ secrets: _secrets, ...s }) => s)) + "\n");
  else {
    for (const s of all) io.stdout(`${s.id}  ${s.account}  ${stateOf(s)}  ${s.events.join(",")}  ${s.url}\n`);
  }
  return 0;
}

async function deliveries(webhooks: WebhookStores, id: string, io: WebhooksIo): Promise<number> {
  for (const d of await webhooks.outbox.deliveriesOf(id, KEPT_PER_SUBSCRIPTION)) {
    const attempts = d.attempts.map((a) => `${a.at} ${a.status ?? a.error ?? "no answer"}`).join("; ");
    io.stdout(
      `${d.id}  ${d.event.type}  ${d.state}  next ${d.next_at}  attempts: ${attempts || "none yet"}\n`,
    );
  }
  return 0;
}

/** Runs one command; returns the exit code. `datasets`: the ids `--datasets` may name. */
export async function runWebhooksCli(
  argv: readonly string[],
  webhooks: WebhookStores,
  rules: DestinationRules,
  io: WebhooksIo,
  datasets?: readonly string[],
): Promise<number> {
  const [command, id] = argv;
  const change = (fn: (all: Subscription[]) => void) => updateSubscriptions(webhooks.documents, fn);
  switch (command) {
    case "create":
      return create(webhooks, argv, rules, io, datasets);
    case "list":
      return show(webhooks, argv.includes("--json"), io);
    case "rotate": {
      const secret = await rotateSecret(webhooks.documents, await webhooks.sealingKeys(), id!);
      io.stdout(
        `New signing secret of ${id}, shown only this once (the old one signs too for 24 hours):\n${secret}\n`,
      );
      return 0;
    }
    case "pause":
      await change((all) => pause(subscriptionOf(all, id!), new Date()));
      return 0;
    case "resume":
      await change((all) => resume(subscriptionOf(all, id!)));
      return 0;
    case "delete":
      await change((all) => void all.splice(all.indexOf(subscriptionOf(all, id!)), 1));
      return 0;
    case "test": {
      // Among the subscriptions as the store holds them (Redis's, when this VM serves no copy).
      const subscriptions = await currentSubscriptions(webhooks.documents);
      subscriptionOf(subscriptions, id!);
      const [made] = await webhooks.outbox.enqueue(
        { type: "webhook.test", data: { subscription: id } },
        { only: id, subscriptions },
      );
      io.stdout(`Queued ${made!.id}\n`);
      return 0;
    }
    case "deliveries":
      return deliveries(webhooks, id!, io);
    case "resend":
      io.stdout(`Queued ${(await webhooks.outbox.resend(id!, Date.now())).id} again\n`);
      return 0;
    case "reseal": {
      const keys = await webhooks.sealingKeys();
      const count = await resealSecrets(webhooks.documents, keys);
      await webhooks.resealed(keys.id);
      io.stdout(
        `Sealed ${count} secret${count === 1 ? "" : "s"} again under the key of id ${keys.id}: the other keys may now leave every VM\n`,
      );
      return 0;
    }
    default:
      io.stderr(WEBHOOKS_USAGE);
      return command === "help" || command === undefined ? 0 : 2;
  }
}
