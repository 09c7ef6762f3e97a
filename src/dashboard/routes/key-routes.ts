/** `/dashboard/keys`: the account's keys, creating one (shown once), and revoking one. */
import { isKeyName, KEY_NAME_RULE } from "../../keys/key-name.ts";
import { HttpError } from "../../http/http-error.ts";
import type { Route } from "../../http/router.ts";
import { newKey } from "../../keys/key-admin.ts";
import { type KeyRecord, readUsage, updateKeysAsync } from "../../keys/key-file.ts";
import { type DashboardContext, notice, queryParam } from "../dashboard-context.ts";
import { redirect, sendPage, type SignedIn } from "../dashboard-http.ts";
import { guarded } from "../guarded.ts";
import { keyCreatedPage, keysPage, revokePage } from "../pages/keys-page.ts";

// Another account's key id gets the same answer as an id that does not exist.
function ownKey(ctx: DashboardContext, who: SignedIn, id: string | null): KeyRecord {
  const key = ctx.keys.records().find((k) => k.id === id && k.account === who.account.name);
  if (key === undefined) throw new HttpError(404, "You have no key with that id.");
  return key;
}

// The caller's keys, active ones first, newest first.
function ownKeys(ctx: DashboardContext, who: SignedIn) {
  const usage = readUsage(ctx.dir);
  return ctx.keys
    .records()
    .filter((k) => k.account === who.account.name)
    .map((k) => ctx.keyRow(k, usage))
    .sort(
      (a, b) => Number(a.revoked !== null) - Number(b.revoked !== null) || b.created.localeCompare(a.created),
    );
}

/** The key pages' routes. */
export function keyRoutes(ctx: DashboardContext): Route[] {
  const list = guarded(ctx, {
    get: (req, reply, who) => {
      sendPage(reply, keysPage({ viewer: who.viewer, keys: ownKeys(ctx, who), notice: notice(req) }));
    },
    post: async (_req, reply, who, form) => {
      const name = (form.get("name") ?? "").trim();
      if (!isKeyName(name)) throw new HttpError(400, KEY_NAME_RULE);
      const { key, record } = newKey({ name, account: who.account.name, now: new Date(ctx.now()) });
      await updateKeysAsync(ctx.documents, (keys) => keys.push(record));
      // Shown on the next page, once: never in a URL, never on a page a reload could resubmit.
      await ctx.reveals.put(who.id, { kind: "key", label: name, secret: key });
      redirect(reply, "/dashboard/keys/new");
    },
  });
  const created = guarded(ctx, {
    get: async (req, reply, who) => {
      const shown = await ctx.reveals.take(who.id, "key");
      sendPage(
        reply,
        keyCreatedPage({
          viewer: who.viewer,
          name: shown?.label,
          key: shown?.secret,
          baseUrl: ctx.baseUrl(req),
        }),
      );
    },
  });
  const revoke = guarded(ctx, {
    get: (req, reply, who) => {
      const key = ownKey(ctx, who, queryParam(req, "id"));
      if (key.revoked !== null) return redirect(reply, "/dashboard/keys");
      sendPage(reply, revokePage({ viewer: who.viewer, key: ctx.keyRow(key, readUsage(ctx.dir)) }));
    },
    post: async (_req, reply, who, form) => {
      const id = form.get("id");
      const done = await updateKeysAsync(ctx.documents, (keys) => {
        const key = keys.find((k) => k.id === id && k.account === who.account.name);
        if (key !== undefined) key.revoked ??= new Date(ctx.now()).toISOString();
        return key !== undefined;
      });
      if (!done) throw new HttpError(404, "You have no key with that id.");
      redirect(reply, "/dashboard/keys?notice=revoked");
    },
  });
  return [
    { path: "/dashboard/keys", methods: ["GET", "HEAD", "POST"], scope: null, handler: list },
    { path: "/dashboard/keys/new", methods: ["GET", "HEAD"], scope: null, handler: created },
    { path: "/dashboard/keys/revoke", methods: ["GET", "HEAD", "POST"], scope: null, handler: revoke },
  ];
}
