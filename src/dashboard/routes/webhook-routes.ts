/**
 * `/dashboard/webhooks`: the account's webhook subscriptions (docs/webhooks.md). Making one (its
 * URL checked as every delivery checks it, its secret shown once), its deliveries with every
 * attempt and "resend", a test event, pause and resume, a rotated secret, and deleting it.
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "../../http/http-error.ts";
import type { Route } from "../../http/router.ts";
import { checkDestination, DestinationError } from "../../webhooks/destination.ts";
import type { Delivery } from "../../webhooks/outbox.ts";
import {
  createSubscription,
  type EventType,
  pause,
  readSubscriptions,
  resume,
  rotateSecret,
  STRESS_BAND_NAMES,
  type Subscription,
  TooManySubscriptions,
  updateSubscriptions,
} from "../../webhooks/subscriptions.ts";
import { type DashboardContext, notice, queryParam } from "../dashboard-context.ts";
import { redirect, sendPage, type SignedIn } from "../dashboard-http.ts";
import { guarded } from "../guarded.ts";
import { deleteWebhookPage, webhookPage } from "../pages/webhook-page.ts";
import { CHOSEN_EVENTS, type WebhookForm, webhookSecretPage, webhooksPage } from "../pages/webhooks-page.ts";

/** How many deliveries one webhook's page lists, newest first. */
const SHOWN_DELIVERIES = 100;
/** How many webhooks one account may have: each event goes to each of them. */
export const WEBHOOKS_PER_ACCOUNT = 20;
/** How many test events one account may send in any 60 seconds, all its webhooks together. */
export const TEST_EVENTS_PER_MINUTE = 5;
const NOT_YOURS = "You have no webhook with that id.";

// Another account's webhook gets the same answer as an id that does not exist.
function ownSubscription(ctx: DashboardContext, who: SignedIn, id: string | null): Subscription {
  const found = readSubscriptions(ctx.dir).find((s) => s.id === id && s.account === who.account.name);
  if (found === undefined) throw new HttpError(404, NOT_YOURS);
  return found;
}

async function listPage(
  ctx: DashboardContext,
  req: IncomingMessage,
  who: SignedIn,
  refused?: [WebhookForm, string],
) {
  const mine = readSubscriptions(ctx.dir).filter((s) => s.account === who.account.name);
  const last = new Map<string, Delivery>();
  for (const s of mine) {
    const [latest] = await ctx.webhooks.outbox.deliveriesOf(s.id, 1);
    if (latest !== undefined) last.set(s.id, latest);
  }
  return webhooksPage({
    viewer: who.viewer,
    subscriptions: mine,
    last,
    datasets: (ctx.datasets ?? []).map((d) => d.id),
    ...(refused === undefined
      ? { notice: notice(req) }
      : { form: refused[0], notice: { kind: "error", text: refused[1] } }),
  });
}

// The form's choices, or why they cannot be taken.
async function formChoices(
  ctx: DashboardContext,
  form: URLSearchParams,
): Promise<WebhookForm & { why?: string }> {
  const known = new Set((ctx.datasets ?? []).map((d) => d.id));
  const choices = {
    url: (form.get("url") ?? "").trim(),
    events: form.getAll("events").filter((e) => (CHOSEN_EVENTS as readonly string[]).includes(e)),
    datasets: form.getAll("datasets").filter((d) => known.has(d)),
    minBand: (STRESS_BAND_NAMES as readonly string[]).includes(form.get("min_band") ?? "")
      ? form.get("min_band")!
      : "",
  };
  if (choices.url.length > 2000) return { ...choices, why: "The URL is longer than 2,000 characters." };
  if (choices.events.length === 0) return { ...choices, why: "Tick at least one event." };
  try {
    await checkDestination(choices.url, ctx.webhookRules);
  } catch (error) {
    if (!(error instanceof DestinationError)) throw error;
    return { ...choices, why: `This URL cannot receive webhooks: ${error.message}.` };
  }
  return choices;
}

function listRoutes(ctx: DashboardContext) {
  return guarded(ctx, {
    get: async (req, reply, who) => sendPage(reply, await listPage(ctx, req, who)),
    post: async (req, reply, who, form) => {
      const choices = await formChoices(ctx, form);
      const refuse = async (why: string) =>
        sendPage(reply, await listPage(ctx, req, who, [choices, why]), { status: 400 });
      if (choices.why !== undefined) return refuse(choices.why);
      const { webhooks } = ctx;
      let secret: string;
      try {
        ({ secret } = await createSubscription(webhooks.documents, await webhooks.sealingKeys(), {
          account: who.account.name,
          url: choices.url,
          events: choices.events as EventType[],
          ...(choices.datasets.length === 0 ? {} : { datasets: choices.datasets }),
          ...(choices.minBand === "" ? {} : { minBand: choices.minBand as Subscription["min_band"] }),
          now: new Date(ctx.now()),
          // Counted in the write itself: two processes cannot both make the last one.
          atMost: WEBHOOKS_PER_ACCOUNT,
        }));
      } catch (error) {
        if (!(error instanceof TooManySubscriptions)) throw error;
        return refuse(`You have ${error.count} webhooks, the most an account may have; delete one first.`);
      }
      // Shown on the next page, once, as a new key is.
      await ctx.reveals.put(who.id, { kind: "webhook-secret", label: choices.url, secret });
      redirect(reply, "/dashboard/webhooks/new");
    },
  });
}

// An account's test events in the last minute: each makes a request to the webhook's URL.
async function countTestEvent(ctx: DashboardContext, who: SignedIn): Promise<void> {
  const counted = await ctx.limiter.check(
    `account:${who.account.name}`,
    "webhook_test",
    TEST_EVENTS_PER_MINUTE,
  );
  if (counted.success) return;
  throw new HttpError(
    429,
    `You sent ${TEST_EVENTS_PER_MINUTE} test events in the last minute, the most an account may; try again in ${counted.reset} seconds.`,
    { headers: { "Retry-After": String(counted.reset) } },
  );
}

// The actions of one webhook's page: each a form naming it, answered by a redirect to that page.
function actionRoutes(ctx: DashboardContext) {
  const act = (
    fn: (who: SignedIn, s: Subscription, form: URLSearchParams) => string | void | Promise<string | void>,
  ) =>
    guarded(ctx, {
      post: async (_req, reply, who, form) => {
        const s = ownSubscription(ctx, who, form.get("id"));
        const code = await fn(who, s, form);
        redirect(
          reply,
          code === undefined
            ? "/dashboard/webhooks/new"
            : `/dashboard/webhooks/view?id=${s.id}&notice=${code}`,
        );
      },
    });
  const change = (id: string, fn: (s: Subscription) => void) =>
    updateSubscriptions(ctx.webhooks.documents, (all) => {
      const s = all.find((x) => x.id === id);
      if (s === undefined) throw new HttpError(404, NOT_YOURS);
      fn(s);
    });
  return {
    // One test event waits at a time: a form posted again and again queues no more requests.
    test: act(async (who, s) => {
      const shown = await ctx.webhooks.outbox.deliveriesOf(s.id, SHOWN_DELIVERIES);
      if (shown.some((d) => d.state === "pending" && d.event.type === "webhook.test"))
        return "webhook-test-waiting";
      await countTestEvent(ctx, who);
      const event = { type: "webhook.test", data: { subscription: s.id } } as const;
      await ctx.webhooks.outbox.enqueue(event, { only: s.id, now: ctx.now() });
      return "webhook-test";
    }),
    state: act(async (_who, s, form) => {
      const pausing = form.get("action") === "pause";
      await change(s.id, (x) => (pausing ? pause(x, new Date(ctx.now())) : resume(x)));
      return pausing ? "webhook-paused" : "webhook-resumed";
    }),
    rotate: act(async (who, s) => {
      const { documents } = ctx.webhooks;
      const secret = await rotateSecret(
        documents,
        await ctx.webhooks.sealingKeys(),
        s.id,
        new Date(ctx.now()),
      );
      await ctx.reveals.put(who.id, { kind: "webhook-secret", label: s.url, secret });
    }),
    resend: act(async (_who, s, form) => {
      const id = form.get("delivery") ?? "";
      const found = await ctx.webhooks.outbox.delivery(id);
      if (found === undefined || found.subscription !== s.id || found.state === "pending")
        throw new HttpError(404, "This webhook has no ended delivery with that id.");
      await ctx.webhooks.outbox.resend(id, ctx.now());
      return "webhook-resent";
    }),
  };
}

/** The webhook pages' routes. */
export function webhookRoutes(ctx: DashboardContext): Route[] {
  const shown = guarded(ctx, {
    get: async (_req, reply, who) => {
      const reveal = await ctx.reveals.take(who.id, "webhook-secret");
      sendPage(reply, webhookSecretPage({ viewer: who.viewer, url: reveal?.label, secret: reveal?.secret }));
    },
  });
  const view = guarded(ctx, {
    get: async (req, reply, who) => {
      const subscription = ownSubscription(ctx, who, queryParam(req, "id"));
      const deliveries = await ctx.webhooks.outbox.deliveriesOf(subscription.id, SHOWN_DELIVERIES);
      sendPage(reply, webhookPage({ viewer: who.viewer, subscription, deliveries, notice: notice(req) }));
    },
  });
  const remove = guarded(ctx, {
    get: (req, reply, who) => {
      const subscription = ownSubscription(ctx, who, queryParam(req, "id"));
      sendPage(reply, deleteWebhookPage({ viewer: who.viewer, subscription }));
    },
    post: async (_req, reply, who, form) => {
      const s = ownSubscription(ctx, who, form.get("id"));
      await updateSubscriptions(ctx.webhooks.documents, (all) => {
        const at = all.findIndex((x) => x.id === s.id);
        if (at >= 0) all.splice(at, 1);
      });
      redirect(reply, "/dashboard/webhooks?notice=webhook-deleted");
    },
  });
  const actions = actionRoutes(ctx);
  const page = (path: string, handler: Route["handler"], post = false): Route => ({
    path,
    methods: post ? ["POST"] : ["GET", "HEAD", "POST"],
    scope: null,
    handler,
  });
  return [
    page("/dashboard/webhooks", listRoutes(ctx)),
    { path: "/dashboard/webhooks/new", methods: ["GET", "HEAD"], scope: null, handler: shown },
    { path: "/dashboard/webhooks/view", methods: ["GET", "HEAD"], scope: null, handler: view },
    page("/dashboard/webhooks/delete", remove),
    page("/dashboard/webhooks/test", actions.test, true),
    page("/dashboard/webhooks/state", actions.state, true),
    page("/dashboard/webhooks/rotate", actions.rotate, true),
    page("/dashboard/webhooks/resend", actions.resend, true),
  ];
}
