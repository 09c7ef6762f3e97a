/** What every dashboard route shares: its settings, clocks, stores, and small helpers. */
import { createRecentMarginChart } from "./recent-supply-margin.ts";
import { createRecentShedding } from "./recent-load-reduction.ts";
import { type DocumentStore, fileDocuments } from "../files/document-store.ts";
import type { IncomingMessage } from "node:http";
import { randomBytes } from "node:crypto";
import type { AccountRegistry } from "../accounts/account-registry.ts";
import { decoyHash, type PasswordHash } from "../accounts/password.ts";
import { LIFETIME_MS, type SessionStore } from "../accounts/session-store.ts";
import type { KeyRecord } from "../keys/key-file.ts";
import type { KeyRegistry } from "../keys/key-registry.ts";
import { SCOPES, type Scope } from "../limits/scopes.ts";
import type { DatasetDefinition } from "../datasets/registry.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import type { RequestCounter } from "../usage/request-counts.ts";
import { publicBase } from "../http/public-base.ts";
import type { DestinationRules } from "../webhooks/destination.ts";
import { fileWebhookStores, type WebhookStores } from "../webhooks/webhook-stores.ts";
import { createLimiter, type Limiter } from "../limits/limiter.ts";
import { cookie } from "./cookies.ts";
import type { Html } from "./html.ts";
import type { PageContent } from "./layout.ts";
import type { KeyRow } from "./pages/keys-page.ts";
import { createRecentMixChart } from "./recent-mix.ts";
import { createRevealStore, type RevealStore } from "./reveal.ts";
import { createSignInThrottle, type SignInThrottle } from "./sign-in-throttle.ts";

export interface DashboardOptions {
  /** The data directory holding keys.json and accounts.json. */
  readonly dir: string;
  readonly store: ReadingStore;
  readonly accounts: AccountRegistry;
  readonly sessions: SessionStore;
  readonly keys: KeyRegistry;
  readonly counter: RequestCounter;
  /** Default limits per scope, before a key's own. */
  readonly limits: Readonly<Record<Scope, number>>;
  /** Whether cookies carry `Secure` (set when a TLS proxy is in front). */
  readonly secureCookies: boolean;
  /** How many reverse proxies in front append to X-Forwarded-For (TRUST_PROXY); 0: none. */
  readonly trustedProxies?: number;
  readonly now?: () => number;
  readonly throttle?: SignInThrottle;
  readonly reveals?: RevealStore;
  readonly logError?: (error: unknown) => void;
  /** Where the dashboard's changes go (keys, accounts): DATA_DIR's files by default, or Redis's copies. */
  readonly documents?: DocumentStore;
  /** How old the newest actual hour may be before the data is stale (STALE_AFTER_H). */
  readonly staleAfterMs?: number;
  /** The secret that signs the sign-in form's tokens (`dashboard-secret.ts`); a random one by default. */
  readonly secret?: Uint8Array;
  /** The datasets the explorer shows (the API's, as its catalog lists them). */
  readonly datasets?: readonly DatasetDefinition[];
  /** Where webhooks may go (WEBHOOK_ALLOW_PRIVATE, WEBHOOK_ALLOW_HTTP); by default https to public addresses only. */
  readonly webhookRules?: DestinationRules;
  /** Where the webhooks' subscriptions, outbox and sealing key are: DATA_DIR's by default, or Redis's. */
  readonly webhooks?: WebhookStores;
  /** The service's limiter (shared through Redis with REDIS_URL): an account's test events count there. */
  readonly limiter?: Limiter;
}

/** The options with every default filled in, and the helpers the routes share. */
export interface DashboardContext extends DashboardOptions {
  readonly documents: DocumentStore;
  readonly now: () => number;
  readonly throttle: SignInThrottle;
  readonly reveals: RevealStore;
  readonly logError: (error: unknown) => void;
  readonly webhookRules: DestinationRules;
  readonly webhooks: WebhookStores;
  readonly limiter: Limiter;
  /** The home page's chart, redrawn only when the store changed. */
  readonly chart: () => Html;
  /** The home page's supply-margin chart, redrawn only when the store changed. */
  readonly margin: () => Html;
  /** The home page's load-shedding bars, redrawn only when the store changed. */
  readonly shedding: () => Html;
  /** A hash unknown usernames are checked against, so a sign-in takes as long either way. */
  readonly decoy: PasswordHash;
  readonly secret: Uint8Array;
  /** `Set-Cookie` for a new session, and for deleting a cookie. */
  sessionCookie(id: string): string;
  clearCookie(name: string): string;
  /** The service's address as the browser reached it, for ready-to-run commands. */
  baseUrl(req: IncomingMessage): string;
  /** A key as the pages show it: last use from memory or the usage file, limits per scope. */
  keyRow(key: KeyRecord, usage: Readonly<Record<string, string>>): KeyRow;
}

/** Fixed notices a redirect can name in `?notice=`; nothing a user typed ever travels in a URL. */
const NOTICES: Readonly<Record<string, NonNullable<PageContent["notice"]>>> = {
  "signed-out": { kind: "ok", text: "You are signed out." },
  "session-ended": { kind: "error", text: "Your session has ended. Sign in again." },
  "password-changed": { kind: "ok", text: "Your password is changed; every other browser is signed out." },
  revoked: { kind: "ok", text: "The key is revoked. Requests with it now get 401 Invalid API key." },
  "limits-saved": { kind: "ok", text: "The key's limits are saved; they apply from its next request." },
  "account-disabled": {
    kind: "ok",
    text: "The account is disabled: its sessions ended and its keys are refused.",
  },
  "account-enabled": { kind: "ok", text: "The account is enabled again." },
  "webhook-test": {
    kind: "ok",
    text: "A webhook.test event is queued for this webhook; its delivery shows below within seconds (reload).",
  },
  "webhook-test-waiting": {
    kind: "error",
    text: "A webhook.test event for this webhook is still waiting (below): another is queued once it has gone.",
  },
  "webhook-resent": { kind: "ok", text: "The delivery is queued again, with the same webhook-id." },
  "webhook-paused": { kind: "ok", text: "The webhook is paused: its events wait until you resume it." },
  "webhook-resumed": { kind: "ok", text: "The webhook is enabled: waiting events go out now." },
  "webhook-deleted": { kind: "ok", text: "The webhook is deleted: nothing more is sent to it." },
};

/** The notice a redirect asked for, if any. */
export function notice(req: IncomingMessage): PageContent["notice"] {
  const code = queryParam(req, "notice");
  return code === null ? undefined : NOTICES[code];
}

/** One query parameter of the request. */
export function queryParam(req: IncomingMessage, name: string): string | null {
  return new URL(req.url ?? "/", "http://localhost").searchParams.get(name);
}

/** Fills in the defaults and builds the shared helpers. */
export function createDashboardContext(options: DashboardOptions): DashboardContext {
  const now = options.now ?? Date.now;
  const secure = options.secureCookies;
  const documents = options.documents ?? fileDocuments(options.dir);
  return {
    ...options,
    now,
    throttle: options.throttle ?? createSignInThrottle({ now }),
    reveals: options.reveals ?? createRevealStore({ now }),
    logError: options.logError ?? ((error) => console.error(error)),
    documents,
    webhookRules: options.webhookRules ?? { allowPrivate: false, allowHttp: false },
    webhooks: options.webhooks ?? fileWebhookStores(options.dir, { documents }),
    limiter: options.limiter ?? createLimiter({ now }),
    chart: createRecentMixChart(options.store),
    margin: createRecentMarginChart(options.store),
    shedding: createRecentShedding(options.store),
    decoy: decoyHash(),
    secret: options.secret ?? randomBytes(32),
    sessionCookie: (id) => cookie("gds_session", id, { maxAge: LIFETIME_MS / 1000, secure }),
    clearCookie: (name) => cookie(name, "", { maxAge: 0, secure }),
    baseUrl: (req) => publicBase(req, secure),
    keyRow(k, usage) {
      const memory = options.keys.lastUsed(k.id);
      const stored = usage[k.id] ?? null;
      const recent = memory === undefined ? null : new Date(memory).toISOString();
      return {
        id: k.id,
        name: k.name,
        prefix: k.prefix,
        created: k.created,
        lastUsed: recent !== null && (stored === null || recent > stored) ? recent : stored,
        revoked: k.revoked,
        limits: SCOPES.map((scope) => ({
          scope,
          limit: k.limits[scope] ?? options.limits[scope],
          own: k.limits[scope] !== undefined,
        })),
      };
    },
  };
}
