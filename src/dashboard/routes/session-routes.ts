/** Signing in and out, and changing one's password. */
import type { IncomingMessage } from "node:http";
import type { Reply } from "../../http/reply.ts";
import { changePassword } from "../../accounts/account-admin.ts";
import { passwordProblem, verifyPassword } from "../../accounts/password.ts";
import { guessable } from "../../accounts/guessable.ts";
import { HttpError } from "../../http/http-error.ts";
import type { Route } from "../../http/router.ts";
import { cookie, readCookie, SESSION_COOKIE, SIGN_IN_COOKIE } from "../cookies.ts";
import { issueSignInToken, signInTokenValid, tokensMatch } from "../csrf.ts";
import { type DashboardContext, notice } from "../dashboard-context.ts";
import {
  clientAddress,
  redirect,
  sameOriginPost,
  sendPage,
  type SignedIn,
  signedIn,
} from "../dashboard-http.ts";
import { readForm } from "../form-body.ts";
import { failPage, guarded } from "../guarded.ts";
import type { PageContent, Viewer } from "../layout.ts";
import { messagePage } from "../pages/message-page.ts";
import { passwordPage, signInPage } from "../pages/sign-in-page.ts";

// Each showing of the sign-in form gets a fresh signed double-submit token, in the form and in a cookie.
function showSignIn(
  ctx: DashboardContext,
  reply: Reply,
  shown: { username?: string; error?: string; notice?: PageContent["notice"] },
): void {
  const token = issueSignInToken(ctx.secret, ctx.now());
  sendPage(reply, signInPage({ token, ...shown }), {
    headers: { "Set-Cookie": cookie(SIGN_IN_COOKIE, token, { maxAge: 3600, secure: ctx.secureCookies }) },
  });
}

function tooMany(reply: Reply, retryAfter: number, viewer: Viewer | null): void {
  const minutes = Math.ceil(retryAfter / 60);
  const text = `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
  sendPage(reply, messagePage({ title: "Too many attempts", text, viewer, back: "/dashboard/sign-in" }), {
    status: 429,
    headers: { "Retry-After": String(retryAfter) },
  });
}

async function signIn(ctx: DashboardContext, req: IncomingMessage, reply: Reply): Promise<void> {
  const form = await readForm(req);
  const token = form.get("csrf") ?? undefined;
  const genuine =
    tokensMatch(readCookie(req, SIGN_IN_COOKIE), token) && signInTokenValid(ctx.secret, token, ctx.now());
  if (!sameOriginPost(req) || !genuine) {
    throw new HttpError(403, "The sign-in form could not be verified. Reload the page and try again.");
  }
  const typed = (form.get("username") ?? "").trim();
  const username = typed.toLowerCase().slice(0, 200);
  const address = clientAddress(req, ctx.trustedProxies);
  // The attempt counts as a failure from here: a burst gets no more guesses than the limits.
  const verdict = await ctx.throttle.begin(username, address);
  if (!verdict.allowed) return tooMany(reply, verdict.retryAfter, null);
  // The accounts as they are kept now, read for every name alike: an account made on another VM a
  // moment ago signs in at once, and a name this VM does not know takes no longer than one it does.
  await ctx.accounts.catchUp({ fresh: true });
  const account = ctx.accounts.get(username);
  const matches = await verifyPassword(form.get("password") ?? "", account?.password ?? ctx.decoy);
  if (account === undefined || !matches) {
    return showSignIn(ctx, reply, { username: typed, error: "Incorrect username or password." });
  }
  await ctx.throttle.succeeded(verdict.attempt);
  if (account.disabled !== null) {
    return showSignIn(ctx, reply, {
      username: typed,
      error: "This account is disabled. Ask your operator to enable it.",
    });
  }
  const { id } = await ctx.sessions.create(account.name);
  redirect(reply, account.mustChangePassword ? "/dashboard/password" : "/dashboard", {
    "Set-Cookie": [ctx.sessionCookie(id), ctx.clearCookie(SIGN_IN_COOKIE)],
  });
}

// Checks the change-password form; the message for the user, or undefined when it may go ahead.
async function passwordFormProblem(who: SignedIn, form: URLSearchParams): Promise<string | undefined> {
  const next = form.get("new_password") ?? "";
  const problem = passwordProblem(next);
  if (problem !== undefined) return problem + ".";
  if (next !== (form.get("confirm_password") ?? "")) return "The two new passwords differ.";
  const weak = await guessable(next, who.account.name);
  if (weak !== undefined) return weak + ".";
  if (await verifyPassword(next, who.account.password))
    return "Choose a password other than the current one.";
  return undefined;
}

async function changeOwnPassword(
  ctx: DashboardContext,
  req: IncomingMessage,
  reply: Reply,
  who: SignedIn,
  form: URLSearchParams,
): Promise<void> {
  const again = (error: string) =>
    sendPage(reply, passwordPage({ viewer: who.viewer, forced: who.account.mustChangePassword, error }), {
      status: 400,
    });
  // Wrong current passwords count like failed sign-ins: a stolen session cannot guess at leisure.
  const address = clientAddress(req, ctx.trustedProxies);
  const verdict = await ctx.throttle.begin(who.account.name, address);
  if (!verdict.allowed) return tooMany(reply, verdict.retryAfter, who.viewer);
  if (!(await verifyPassword(form.get("current_password") ?? "", who.account.password))) {
    return again("The current password is not right.");
  }
  await ctx.throttle.succeeded(verdict.attempt);
  const problem = await passwordFormProblem(who, form);
  if (problem !== undefined) return again(problem);
  await changePassword(ctx.dir, who.account.name, form.get("new_password")!, {
    now: new Date(ctx.now()),
    documents: ctx.documents,
  });
  await ctx.sessions.endAll(who.account.name);
  const { id } = await ctx.sessions.create(who.account.name);
  redirect(reply, "/dashboard?notice=password-changed", { "Set-Cookie": ctx.sessionCookie(id) });
}

/** `/dashboard/sign-in`, `/dashboard/sign-out` and `/dashboard/password`. */
export function sessionRoutes(ctx: DashboardContext): Route[] {
  const signInPage: Route["handler"] = async (req, reply) => {
    try {
      if (req.method === "POST") return await signIn(ctx, req, reply);
      if (signedIn(req, ctx.sessions, ctx.accounts) !== undefined) return redirect(reply, "/dashboard");
      showSignIn(ctx, reply, { notice: notice(req) });
    } catch (error) {
      failPage(ctx, reply, error);
    }
  };
  const signOut = guarded(
    ctx,
    {
      post: async (_req, reply, who) => {
        await ctx.sessions.end(who.id);
        redirect(reply, "/dashboard/sign-in?notice=signed-out", {
          "Set-Cookie": ctx.clearCookie(SESSION_COOKIE),
        });
      },
    },
    { allowedBeforePasswordChange: true },
  );
  const password = guarded(
    ctx,
    {
      get: (_req, reply, who) =>
        sendPage(reply, passwordPage({ viewer: who.viewer, forced: who.account.mustChangePassword })),
      post: (req, reply, who, form) => changeOwnPassword(ctx, req, reply, who, form),
    },
    { allowedBeforePasswordChange: true },
  );
  return [
    { path: "/dashboard/sign-in", methods: ["GET", "HEAD", "POST"], scope: null, handler: signInPage },
    { path: "/dashboard/sign-out", methods: ["POST"], scope: null, handler: signOut },
    { path: "/dashboard/password", methods: ["GET", "HEAD", "POST"], scope: null, handler: password },
  ];
}
