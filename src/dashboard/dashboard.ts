/**
 * The account dashboard under `/dashboard`: sign-in, change password, the account's keys (create,
 * shown once, revoke), its use of the API and a look at the data, and for admins every account and
 * key. Server-rendered HTML that works without JavaScript. Every state change is a POST carrying
 * an anti-forgery token; see the README's Dashboard section for the cookie, CSRF and sign-in rules.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  AccountError,
  changePassword,
  createAccount,
  setAccountDisabled,
} from "../accounts/account-admin.ts";
import type { AccountRegistry } from "../accounts/account-registry.ts";
import { hashPassword, passwordProblem, verifyPassword } from "../accounts/password.ts";
import { LIFETIME_MS, type SessionStore } from "../accounts/session-store.ts";
import { HttpError } from "../http/http-error.ts";
import type { Route } from "../http/router.ts";
import { send } from "../http/send.ts";
import { applyLimits, newKey } from "../keys/key-admin.ts";
import { type KeyRecord, readKeys, readUsage, updateKeysAsync } from "../keys/key-file.ts";
import type { KeyRegistry } from "../keys/key-registry.ts";
import { SCOPES, type Scope } from "../limits/scopes.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { dayKey, DAY_MS, formatInstant } from "../time.ts";
import { lastDays, type RequestCounter } from "../usage/request-counts.ts";
import { cookie, readCookie, SESSION_COOKIE, SIGN_IN_COOKIE } from "./cookies.ts";
import { tokensMatch } from "./csrf.ts";
import {
  clientAddress,
  redirect,
  sameOriginPost,
  SECURITY_HEADERS,
  sendPage,
  type SignedIn,
  signedIn,
} from "./dashboard-http.ts";
import { readForm } from "./form-body.ts";
import type { PageContent } from "./layout.ts";
import { accountCreatedPage, adminPage } from "./pages/admin-page.ts";
import { homePage } from "./pages/home-page.ts";
import { keyCreatedPage, type KeyRow, keysPage, revokePage } from "./pages/keys-page.ts";
import { messagePage } from "./pages/message-page.ts";
import { passwordPage, signInPage } from "./pages/sign-in-page.ts";
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
  readonly now?: () => number;
  readonly throttle?: SignInThrottle;
  readonly reveals?: RevealStore;
  readonly logError?: (error: unknown) => void;
}

const asset = (name: string, type: string) => ({
  type,
  body: readFileSync(new URL(`assets/${name}`, import.meta.url)),
});
/** The stylesheet, the script (conveniences only) and the icon, read once at start. */
const ASSETS: Readonly<Record<string, { type: string; body: Buffer }>> = {
  "dashboard.css": asset("dashboard.css", "text/css; charset=utf-8"),
  "dashboard.js": asset("dashboard.js", "text/javascript; charset=utf-8"),
  "favicon.svg": asset("favicon.svg", "image/svg+xml"),
};

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
};

const KEY_NAME = /^[^\p{Cc}]{1,100}$/u;

function notice(req: IncomingMessage): PageContent["notice"] {
  const code = new URL(req.url ?? "/", "http://x").searchParams.get("notice");
  return code === null ? undefined : NOTICES[code];
}

/** The dashboard's routes, for the service's route table. */
export function dashboardRoutes(options: DashboardOptions): Route[] {
  const { dir, accounts, sessions, counter } = options;
  const now = options.now ?? Date.now;
  const throttle = options.throttle ?? createSignInThrottle({ now });
  const reveals = options.reveals ?? createRevealStore({ now });
  const logError = options.logError ?? ((error) => console.error(error));
  const chart = createRecentMixChart(options.store);
  // Unknown usernames are checked against this hash, so a sign-in takes as long whether or not the
  // account exists.
  const decoy = hashPassword(randomBytes(16).toString("hex"));

  const sessionCookie = (id: string) =>
    cookie(SESSION_COOKIE, id, { maxAge: LIFETIME_MS / 1000, secure: options.secureCookies });
  const clearCookie = (name: string) => cookie(name, "", { maxAge: 0, secure: options.secureCookies });

  function baseUrl(req: IncomingMessage): string {
    const host = req.headers.host;
    const safe = host !== undefined && /^[A-Za-z0-9.\-:[\]]{1,255}$/.test(host) ? host : "127.0.0.1:8000";
    return `${options.secureCookies ? "https" : "http"}://${safe}`;
  }

  function keyRow(k: KeyRecord, usage: Readonly<Record<string, string>>): KeyRow {
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
  }

  // ---- the pipeline: who is asking, and may they post this form ----

  type Page = (req: IncomingMessage, res: ServerResponse, who: SignedIn) => void | Promise<void>;
  type Form = (
    req: IncomingMessage,
    res: ServerResponse,
    who: SignedIn,
    form: URLSearchParams,
  ) => Promise<void>;

  function fail(res: ServerResponse, error: unknown, who: SignedIn | undefined): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const status = error instanceof HttpError ? error.status : 500;
    if (!(error instanceof HttpError)) logError(error);
    const text =
      error instanceof HttpError ? error.detail : "Something went wrong on our side; it has been logged.";
    const title =
      status === 404
        ? "Not found"
        : status === 403
          ? "Not allowed"
          : status === 500
            ? "Server error"
            : "Cannot do that";
    sendPage(res, messagePage({ title, text, viewer: who?.viewer ?? null }), { status });
  }

  /** A page or form for signed-in users (admins only with `admin`). */
  function guarded(
    handlers: { get?: Page; post?: Form },
    options: { admin?: boolean; allowedBeforePasswordChange?: boolean } = {},
  ) {
    return async (req: IncomingMessage, res: ServerResponse) => {
      let who: SignedIn | undefined;
      try {
        who = signedIn(req, sessions, accounts);
        if (who === undefined) {
          if (req.method === "POST") req.resume();
          const ended = readCookie(req, SESSION_COOKIE) !== undefined;
          redirect(res, ended ? "/dashboard/sign-in?notice=session-ended" : "/dashboard/sign-in", {
            ...(ended ? { "Set-Cookie": clearCookie(SESSION_COOKIE) } : {}),
          });
          return;
        }
        if (options.admin && !who.account.admin) throw new HttpError(404, "There is no such page.");
        if (req.method === "POST") {
          if (handlers.post === undefined) throw new HttpError(405, "This page takes no form.");
          const form = await readForm(req);
          if (!sameOriginPost(req) || !tokensMatch(who.viewer.csrf, form.get("csrf") ?? undefined)) {
            throw new HttpError(
              403,
              "The form could not be verified (it may be from another site, or from before you signed in again). Reload the page and try again.",
            );
          }
          if (who.account.mustChangePassword && !options.allowedBeforePasswordChange) {
            redirect(res, "/dashboard/password");
            return;
          }
          await handlers.post(req, res, who, form);
          return;
        }
        if (who.account.mustChangePassword && !options.allowedBeforePasswordChange) {
          redirect(res, "/dashboard/password");
          return;
        }
        if (handlers.get === undefined) throw new HttpError(405, "This address takes a form only.");
        await handlers.get(req, res, who);
      } catch (error) {
        fail(res, error, who);
      }
    };
  }

  // ---- sign-in and sign-out ----

  // Each showing of the form gets a fresh double-submit token, in the form and in a cookie.
  function showSignIn(
    res: ServerResponse,
    shown: { username?: string; error?: string; notice?: PageContent["notice"] },
  ) {
    const token = randomBytes(32).toString("base64url");
    sendPage(res, signInPage({ token, ...shown }), {
      headers: {
        "Set-Cookie": cookie(SIGN_IN_COOKIE, token, { maxAge: 3600, secure: options.secureCookies }),
      },
    });
  }

  async function signInPost(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    if (
      !sameOriginPost(req) ||
      !tokensMatch(readCookie(req, SIGN_IN_COOKIE), form.get("csrf") ?? undefined)
    ) {
      throw new HttpError(403, "The sign-in form could not be verified. Reload the page and try again.");
    }
    const typed = (form.get("username") ?? "").trim();
    const username = typed.toLowerCase().slice(0, 200);
    const password = form.get("password") ?? "";
    const address = clientAddress(req);
    const verdict = throttle.check(username, address);
    if (!verdict.allowed) {
      sendPage(
        res,
        messagePage({
          title: "Too many attempts",
          text: `Too many failed sign-ins. Try again in ${Math.ceil(verdict.retryAfter / 60)} minute${verdict.retryAfter > 60 ? "s" : ""}.`,
          viewer: null,
          back: "/dashboard/sign-in",
        }),
        { status: 429, headers: { "Retry-After": String(verdict.retryAfter) } },
      );
      return;
    }
    const account = accounts.get(username);
    const matches = await verifyPassword(password, account?.password ?? (await decoy));
    if (account === undefined || !matches) {
      throttle.fail(username, address);
      showSignIn(res, { username: typed, error: "Incorrect username or password." });
      return;
    }
    if (account.disabled !== null) {
      showSignIn(res, {
        username: typed,
        error: "This account is disabled. Ask your operator to enable it.",
      });
      return;
    }
    throttle.succeed(username);
    const { id } = await sessions.create(account.name);
    redirect(res, account.mustChangePassword ? "/dashboard/password" : "/dashboard", {
      "Set-Cookie": [sessionCookie(id), clearCookie(SIGN_IN_COOKIE)],
    });
  }

  const signIn: Route = {
    path: "/dashboard/sign-in",
    methods: ["GET", "HEAD", "POST"],
    scope: null,
    handler: async (req, res) => {
      try {
        if (req.method === "POST") {
          await signInPost(req, res);
          return;
        }
        if (signedIn(req, sessions, accounts) !== undefined) {
          redirect(res, "/dashboard");
          return;
        }
        showSignIn(res, { notice: notice(req) });
      } catch (error) {
        fail(res, error, undefined);
      }
    },
  };

  const signOut = guarded(
    {
      post: async (_req, res, who) => {
        await sessions.end(who.id);
        redirect(res, "/dashboard/sign-in?notice=signed-out", { "Set-Cookie": clearCookie(SESSION_COOKIE) });
      },
    },
    { allowedBeforePasswordChange: true },
  );

  // ---- password ----

  const password = guarded(
    {
      get: (req, res, who) =>
        sendPage(res, passwordPage({ viewer: who.viewer, forced: who.account.mustChangePassword })),
      post: async (req, res, who, form) => {
        const again = (error: string) =>
          sendPage(res, passwordPage({ viewer: who.viewer, forced: who.account.mustChangePassword, error }), {
            status: 400,
          });
        const address = clientAddress(req);
        const verdict = throttle.check(who.account.name, address);
        if (!verdict.allowed) {
          sendPage(
            res,
            messagePage({
              title: "Too many attempts",
              text: "Too many wrong passwords. Try again later.",
              viewer: who.viewer,
            }),
            {
              status: 429,
              headers: { "Retry-After": String(verdict.retryAfter) },
            },
          );
          return;
        }
        if (!(await verifyPassword(form.get("current_password") ?? "", who.account.password))) {
          throttle.fail(who.account.name, address);
          again("The current password is not right.");
          return;
        }
        const next = form.get("new_password") ?? "";
        const problem = passwordProblem(next);
        if (problem !== undefined) return again(problem + ".");
        if (next !== (form.get("confirm_password") ?? "")) return again("The two new passwords differ.");
        if (await verifyPassword(next, who.account.password))
          return again("Choose a password other than the current one.");
        await changePassword(dir, who.account.name, next, new Date(now()));
        await sessions.endAll(who.account.name);
        const { id } = await sessions.create(who.account.name);
        redirect(res, "/dashboard?notice=password-changed", { "Set-Cookie": sessionCookie(id) });
      },
    },
    { allowedBeforePasswordChange: true },
  );

  // ---- home ----

  const home = guarded({
    get: (req, res, who) => {
      const keys = readKeys(dir).filter((k) => k.account === who.account.name);
      const snapshot = options.store.refresh();
      const last = snapshot.lastActual;
      const day = last === null ? "2025-06-01" : dayKey(last);
      const next = dayKey(Date.parse(day) + DAY_MS);
      sendPage(
        res,
        homePage({
          viewer: who.viewer,
          scopes: SCOPES,
          usage: counter.totals(new Set(keys.map((k) => k.id)), lastDays(now(), 7)),
          activeKeys: keys.filter((k) => k.revoked === null).length,
          chart: chart(),
          lastAvailable: last === null ? null : formatInstant(last).replace("+00:00", "Z"),
          curl: `curl -H "X-API-KEY: YOUR_KEY" "${baseUrl(req)}/api/v1/grid/system-state?start=${day}&end=${next}"`,
          notice: notice(req),
        }),
      );
    },
  });

  // ---- keys ----

  function ownKey(who: SignedIn, id: string | null): KeyRecord {
    const key = readKeys(dir).find((k) => k.id === id && k.account === who.account.name);
    // Another account's key id gets the same answer as an id that does not exist.
    if (key === undefined) throw new HttpError(404, "You have no key with that id.");
    return key;
  }

  const keysList = guarded({
    get: (req, res, who) => {
      const usage = readUsage(dir);
      const keys = readKeys(dir)
        .filter((k) => k.account === who.account.name)
        .map((k) => keyRow(k, usage))
        .sort(
          (a, b) =>
            Number(a.revoked !== null) - Number(b.revoked !== null) || b.created.localeCompare(a.created),
        );
      sendPage(res, keysPage({ viewer: who.viewer, keys, notice: notice(req) }));
    },
    post: async (_req, res, who, form) => {
      const name = (form.get("name") ?? "").trim();
      if (!KEY_NAME.test(name))
        throw new HttpError(400, "A key's name must be 1 to 100 characters, without control characters.");
      const { key, record } = newKey({ name, account: who.account.name, now: new Date(now()) });
      await updateKeysAsync(dir, (keys) => keys.push(record));
      reveals.put(who.session.hash, { kind: "key", label: name, secret: key });
      redirect(res, "/dashboard/keys/new");
    },
  });

  const keyCreated = guarded({
    get: (req, res, who) => {
      const shown = reveals.take(who.session.hash, "key");
      sendPage(
        res,
        keyCreatedPage({ viewer: who.viewer, name: shown?.label, key: shown?.secret, baseUrl: baseUrl(req) }),
      );
    },
  });

  const revoke = guarded({
    get: (req, res, who) => {
      const id = new URL(req.url ?? "/", "http://x").searchParams.get("id");
      const key = ownKey(who, id);
      if (key.revoked !== null) {
        redirect(res, "/dashboard/keys");
        return;
      }
      sendPage(res, revokePage({ viewer: who.viewer, key: keyRow(key, readUsage(dir)) }));
    },
    post: async (_req, res, who, form) => {
      const id = form.get("id");
      const done = await updateKeysAsync(dir, (keys) => {
        const key = keys.find((k) => k.id === id && k.account === who.account.name);
        if (key === undefined) return false;
        key.revoked ??= new Date(now()).toISOString();
        return true;
      });
      if (!done) throw new HttpError(404, "You have no key with that id.");
      redirect(res, "/dashboard/keys?notice=revoked");
    },
  });

  // ---- admin ----

  const admin = guarded(
    {
      get: (req, res, who) => {
        const days = lastDays(now(), 7);
        const usage = readUsage(dir);
        const keys = readKeys(dir);
        const used = (ids: string[]) =>
          Object.values(counter.totals(new Set(ids), days)).reduce(
            (n, scopes) => n + Object.values(scopes).reduce((m, t) => m + t.allowed, 0),
            0,
          );
        sendPage(
          res,
          adminPage({
            viewer: who.viewer,
            notice: notice(req),
            accounts: accounts.all().map((a) => ({
              name: a.name,
              admin: a.admin,
              disabled: a.disabled,
              created: a.created,
              mustChangePassword: a.mustChangePassword,
              activeKeys: keys.filter((k) => k.account === a.name && k.revoked === null).length,
              requests7d: used(keys.filter((k) => k.account === a.name).map((k) => k.id)),
            })),
            keys: keys.map((k) => ({ ...keyRow(k, usage), account: k.account, requests7d: used([k.id]) })),
          }),
        );
      },
    },
    { admin: true },
  );

  const adminAccounts = guarded(
    {
      post: async (_req, res, who, form) => {
        try {
          const { account, oneTimePassword } = await createAccount(dir, {
            name: form.get("name") ?? "",
            admin: form.get("admin") === "true",
            now: new Date(now()),
          });
          reveals.put(who.session.hash, { kind: "password", label: account.name, secret: oneTimePassword! });
          redirect(res, "/dashboard/admin/new");
        } catch (error) {
          if (error instanceof AccountError) throw new HttpError(400, error.message + ".");
          throw error;
        }
      },
    },
    { admin: true },
  );

  const accountCreated = guarded(
    {
      get: (req, res, who) => {
        const shown = reveals.take(who.session.hash, "password");
        sendPage(
          res,
          accountCreatedPage({
            viewer: who.viewer,
            account: shown?.label,
            password: shown?.secret,
            signInUrl: `${baseUrl(req)}/dashboard/sign-in`,
          }),
        );
      },
    },
    { admin: true },
  );

  const accountStatus = guarded(
    {
      post: async (_req, res, who, form) => {
        const name = form.get("account") ?? "";
        const action = form.get("action");
        if (action !== "disable" && action !== "enable")
          throw new HttpError(400, "The action must be disable or enable.");
        if (name === who.account.name) throw new HttpError(400, "You cannot disable your own account.");
        if (accounts.get(name) === undefined) throw new HttpError(404, "There is no such account.");
        await setAccountDisabled(dir, name, action === "disable", new Date(now()));
        if (action === "disable") await sessions.endAll(name);
        redirect(res, `/dashboard/admin?notice=account-${action}d`);
      },
    },
    { admin: true },
  );

  const keyLimits = guarded(
    {
      post: async (_req, res, _who, form) => {
        const limits: Partial<Record<Scope, number | null>> = {};
        for (const scope of SCOPES) {
          const value = (form.get(scope) ?? "").trim();
          if (value === "") limits[scope] = null;
          else if (/^\d{1,9}$/.test(value)) limits[scope] = Number(value);
          else
            throw new HttpError(
              400,
              `The ${scope} limit must be a whole number up to 999999999, or empty for the default.`,
            );
        }
        const id = form.get("id");
        const done = await updateKeysAsync(dir, (keys) => {
          const key = keys.find((k) => k.id === id);
          if (key !== undefined) applyLimits(key, limits);
          return key !== undefined;
        });
        if (!done) throw new HttpError(404, "There is no key with that id.");
        redirect(res, "/dashboard/admin?notice=limits-saved");
      },
    },
    { admin: true },
  );

  const page = (path: string, handler: Route["handler"], methods = ["GET", "HEAD"]): Route => ({
    path,
    methods,
    scope: null,
    handler,
  });
  const FORM = ["POST"];
  const BOTH = ["GET", "HEAD", "POST"];
  return [
    page("/dashboard", home),
    signIn,
    page("/dashboard/sign-out", signOut, FORM),
    page("/dashboard/password", password, BOTH),
    page("/dashboard/keys", keysList, BOTH),
    page("/dashboard/keys/new", keyCreated),
    page("/dashboard/keys/revoke", revoke, BOTH),
    page("/dashboard/admin", admin),
    page("/dashboard/admin/new", accountCreated),
    page("/dashboard/admin/accounts", adminAccounts, FORM),
    page("/dashboard/admin/accounts/status", accountStatus, FORM),
    page("/dashboard/admin/keys/limits", keyLimits, FORM),
    // Browsers ask for /favicon.ico on their own, whatever the page links.
    ...[...Object.entries(ASSETS), ["/favicon.ico", ASSETS["favicon.svg"]!] as const].map(([name, asset]) =>
      page(name.startsWith("/") ? name : `/dashboard/assets/${name}`, (req, res) =>
        send(req, res, {
          body: asset.body,
          contentType: asset.type,
          etag: createHash("sha256").update(asset.body).digest("base64url").slice(0, 27),
          cacheControl: "no-cache",
          headers: SECURITY_HEADERS,
        }),
      ),
    ),
  ];
}
