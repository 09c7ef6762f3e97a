/**
 * The dashboard's request pipeline for signed-in pages: find the session (else to sign-in), hide
 * admin pages from others (404), check a form's anti-forgery token (else 403, nothing changed),
 * send a user with a one-time password to choose their own, and turn any error into an HTML page.
 */
import type { IncomingMessage } from "node:http";
import type { Reply } from "../http/reply.ts";
import { HttpError } from "../http/http-error.ts";
import { asHttpError, isFault } from "../http/domain-errors.ts";
import type { Handler, RequestContext } from "../http/router.ts";
import { readCookie, SESSION_COOKIE } from "./cookies.ts";
import { tokensMatch } from "./csrf.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { redirect, sameOriginPost, sendPage, type SignedIn, signedIn } from "./dashboard-http.ts";
import { readForm } from "./form-body.ts";
import { messagePage } from "./pages/message-page.ts";

/** Shows a page to a signed-in user; `request` makes calls in-process for them (the explorer's data). */
export type Page = (
  req: IncomingMessage,
  reply: Reply,
  who: SignedIn,
  request: RequestContext,
) => void | Promise<void>;
/** Acts on a verified form from a signed-in user. */
export type Form = (
  req: IncomingMessage,
  reply: Reply,
  who: SignedIn,
  form: URLSearchParams,
) => Promise<void>;

const TITLES: Readonly<Record<number, string>> = {
  403: "Not allowed",
  404: "Not found",
  500: "Server error",
};

/** Answers with an HTML page for an error; anything but an HttpError is logged and hidden. */
export function failPage(ctx: DashboardContext, reply: Reply, error: unknown, who?: SignedIn): void {
  if (reply.headersSent) {
    reply.destroy();
    return;
  }
  const answer = asHttpError(error);
  const known = answer instanceof HttpError;
  if (isFault(error)) ctx.logError(error);
  const status = known ? answer.status : 500;
  const text = known ? answer.detail : "Something went wrong on our side; it has been logged.";
  sendPage(
    reply,
    messagePage({ title: TITLES[status] ?? "Cannot do that", text, viewer: who?.viewer ?? null }),
    // The answer's own headers too: a 503's Retry-After says when to try again, as the API's does.
    { status, headers: known ? { ...answer.headers } : {} },
  );
}

function toSignIn(ctx: DashboardContext, req: IncomingMessage, reply: Reply): void {
  if (req.method === "POST") req.resume();
  const ended = readCookie(req, SESSION_COOKIE) !== undefined;
  if (ended) {
    redirect(reply, "/dashboard/sign-in?notice=session-ended", {
      "Set-Cookie": ctx.clearCookie(SESSION_COOKIE),
    });
  } else {
    redirect(reply, "/dashboard/sign-in");
  }
}

async function verifiedForm(req: IncomingMessage, who: SignedIn): Promise<URLSearchParams> {
  const form = await readForm(req);
  if (!sameOriginPost(req) || !tokensMatch(who.viewer.csrf, form.get("csrf") ?? undefined)) {
    throw new HttpError(
      403,
      "The form could not be verified (it may be from another site, or from before you signed in again). Reload the page and try again.",
    );
  }
  return form;
}

/** A handler for signed-in users (admins only with `admin`), showing `get` and acting on `post`. */
export function guarded(
  ctx: DashboardContext,
  handlers: { get?: Page; post?: Form },
  options: { admin?: boolean; allowedBeforePasswordChange?: boolean } = {},
): Handler {
  return async (req, reply, request) => {
    let who: SignedIn | undefined;
    try {
      who = signedIn(req, ctx.sessions, ctx.accounts);
      if (who === undefined && readCookie(req, SESSION_COOKIE) !== undefined) {
        // A session begun on another process a moment ago (Redis's notice not here yet), or of an
        // account made there, is looked up where it was written before the cookie is taken as
        // ended; a lookup that fails is a 503 (failPage), and the cookie is kept.
        await Promise.all([ctx.sessions.catchUp(), ctx.accounts.catchUp()]);
        who = signedIn(req, ctx.sessions, ctx.accounts);
      }
      if (who === undefined) return toSignIn(ctx, req, reply);
      if (options.admin && !who.account.admin) throw new HttpError(404, "There is no such page.");
      const form = req.method === "POST" ? await verifiedForm(req, who) : undefined;
      if (who.account.mustChangePassword && !options.allowedBeforePasswordChange) {
        return redirect(reply, "/dashboard/password");
      }
      if (form !== undefined && handlers.post !== undefined)
        return await handlers.post(req, reply, who, form);
      if (form === undefined && handlers.get !== undefined)
        return await handlers.get(req, reply, who, request);
      throw new HttpError(
        405,
        form === undefined ? "This address takes a form only." : "This page takes no form.",
      );
    } catch (error) {
      failPage(ctx, reply, error, who);
    }
  };
}
