/** `/dashboard/admin`, for admin accounts: every account and key, account creation and control, key limits. */
import { AccountError, createAccount, setAccountDisabled } from "../../accounts/account-admin.ts";
import { HttpError } from "../../http/http-error.ts";
import type { Route } from "../../http/router.ts";
import { applyLimits } from "../../keys/key-admin.ts";
import { type KeyRecord, readUsage, updateKeysAsync } from "../../keys/key-file.ts";
import { SCOPES, type Scope } from "../../limits/scopes.ts";
import { lastDays } from "../../usage/request-counts.ts";
import { type DashboardContext, notice } from "../dashboard-context.ts";
import { redirect, sendPage } from "../dashboard-http.ts";
import { type Form, guarded, type Page } from "../guarded.ts";
import { accountCreatedPage, adminPage } from "../pages/admin-page.ts";

function overview(ctx: DashboardContext): Page {
  return (req, reply, who) => {
    const days = lastDays(ctx.now(), 7);
    const usage = readUsage(ctx.dir);
    const keys = ctx.keys.records();
    // One pass over the counts for every key, not one per key.
    const byKey = ctx.counter.allowedByKey(days);
    const used = (of: readonly KeyRecord[]) => of.reduce((n, k) => n + (byKey.get(k.id) ?? 0), 0);
    const accounts = ctx.accounts.all().map((a) => {
      const own = keys.filter((k) => k.account === a.name);
      return {
        name: a.name,
        admin: a.admin,
        disabled: a.disabled,
        created: a.created,
        mustChangePassword: a.mustChangePassword,
        activeKeys: own.filter((k) => k.revoked === null).length,
        requests7d: used(own),
      };
    });
    const rows = keys.map((k) => ({ ...ctx.keyRow(k, usage), account: k.account, requests7d: used([k]) }));
    sendPage(reply, adminPage({ viewer: who.viewer, notice: notice(req), accounts, keys: rows }));
  };
}

function createAccountForm(ctx: DashboardContext): Form {
  return async (_req, reply, who, form) => {
    try {
      const { account, oneTimePassword } = await createAccount(ctx.dir, {
        name: form.get("name") ?? "",
        admin: form.get("admin") === "true",
        now: new Date(ctx.now()),
        documents: ctx.documents,
      });
      await ctx.reveals.put(who.id, { kind: "password", label: account.name, secret: oneTimePassword! });
      redirect(reply, "/dashboard/admin/new");
    } catch (error) {
      if (error instanceof AccountError) throw new HttpError(400, error.message + ".");
      throw error;
    }
  };
}

function accountStatusForm(ctx: DashboardContext): Form {
  return async (_req, reply, who, form) => {
    const name = form.get("account") ?? "";
    const action = form.get("action");
    if (action !== "disable" && action !== "enable")
      throw new HttpError(400, "The action must be disable or enable.");
    if (name === who.account.name) throw new HttpError(400, "You cannot disable your own account.");
    if (ctx.accounts.get(name) === undefined) throw new HttpError(404, "There is no such account.");
    await setAccountDisabled(ctx.dir, name, action === "disable", {
      now: new Date(ctx.now()),
      documents: ctx.documents,
    });
    if (action === "disable") await ctx.sessions.endAll(name);
    redirect(reply, `/dashboard/admin?notice=account-${action}d`);
  };
}

// Each scope's field: a whole number is the key's own limit, empty means the default.
function limitsFrom(form: URLSearchParams): Partial<Record<Scope, number | null>> {
  const limits: Partial<Record<Scope, number | null>> = {};
  for (const scope of SCOPES) {
    const value = (form.get(scope) ?? "").trim();
    if (value !== "" && !/^\d{1,9}$/.test(value)) {
      throw new HttpError(
        400,
        `The ${scope} limit must be a whole number up to 999999999, or empty for the default.`,
      );
    }
    limits[scope] = value === "" ? null : Number(value);
  }
  return limits;
}

function keyLimitsForm(ctx: DashboardContext): Form {
  return async (_req, reply, _who, form) => {
    const limits = limitsFrom(form);
    const id = form.get("id");
    const done = await updateKeysAsync(ctx.documents, (keys) => {
      const key = keys.find((k) => k.id === id);
      if (key !== undefined) applyLimits(key, limits);
      return key !== undefined;
    });
    if (!done) throw new HttpError(404, "There is no key with that id.");
    redirect(reply, "/dashboard/admin?notice=limits-saved");
  };
}

/** The admin pages' routes; every one is a 404 for an account that is not an admin. */
export function adminRoutes(ctx: DashboardContext): Route[] {
  const admin = { admin: true };
  const revealed: Page = async (req, reply, who) => {
    const shown = await ctx.reveals.take(who.id, "password");
    sendPage(
      reply,
      accountCreatedPage({
        viewer: who.viewer,
        account: shown?.label,
        password: shown?.secret,
        signInUrl: `${ctx.baseUrl(req)}/dashboard/sign-in`,
      }),
    );
  };
  const route = (path: string, methods: string[], handler: Route["handler"]): Route => ({
    path,
    methods,
    scope: null,
    handler,
  });
  return [
    route("/dashboard/admin", ["GET", "HEAD"], guarded(ctx, { get: overview(ctx) }, admin)),
    route("/dashboard/admin/new", ["GET", "HEAD"], guarded(ctx, { get: revealed }, admin)),
    route("/dashboard/admin/accounts", ["POST"], guarded(ctx, { post: createAccountForm(ctx) }, admin)),
    route(
      "/dashboard/admin/accounts/status",
      ["POST"],
      guarded(ctx, { post: accountStatusForm(ctx) }, admin),
    ),
    route("/dashboard/admin/keys/limits", ["POST"], guarded(ctx, { post: keyLimitsForm(ctx) }, admin)),
  ];
}
