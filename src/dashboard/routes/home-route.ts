/** `/dashboard`: the account's use of the API, a ready request, and the chart of recent generation. */
import type { Route } from "../../http/router.ts";
import { SCOPES } from "../../limits/scopes.ts";
import { DAY_MS, dayKey, formatInstant, HOUR_MS } from "../../time.ts";
import { lastDays } from "../../usage/request-counts.ts";
import { type DashboardContext, notice } from "../dashboard-context.ts";
import { sendPage } from "../dashboard-http.ts";
import { guarded } from "../guarded.ts";
import { STALE_AFTER_MS } from "../../http/health-handler.ts";
import { storeFreshness } from "../../pull/source-freshness.ts";
import { lastSuccessfulPull } from "../../pull/pull-state.ts";
import { homePage } from "../pages/home-page.ts";

/** The home page's route. */
export function homeRoute(ctx: DashboardContext): Route {
  const handler = guarded(ctx, {
    get: (req, reply, who) => {
      const keys = ctx.keys.records().filter((k) => k.account === who.account.name);
      const { lastActual: last, sample } = ctx.store.refresh();
      const pulled = lastSuccessfulPull(ctx.dir);
      const fresh = storeFreshness(ctx.dir, last, ctx.now(), ctx.staleAfterMs ?? STALE_AFTER_MS);
      // The ready request asks for the newest stored day, so it returns data on any store.
      const day = last === null ? dayKey(ctx.now()) : dayKey(last);
      const next = dayKey(Date.parse(day) + DAY_MS);
      sendPage(
        reply,
        homePage({
          viewer: who.viewer,
          scopes: SCOPES,
          // The account's keys and its own requests (the explorer's data, counted as the account).
          usage: ctx.counter.totals(
            new Set([...keys.map((k) => k.id), `account:${who.account.name}`]),
            lastDays(ctx.now(), 7),
          ),
          activeKeys: keys.filter((k) => k.revoked === null).length,
          chart: ctx.chart(),
          margin: ctx.margin(),
          shedding: ctx.shedding(),
          lastAvailable: last === null ? null : formatInstant(last).replace("+00:00", "Z"),
          stale: fresh.stale,
          ...(fresh.why === undefined ? {} : { staleReason: fresh.why }),
          staleAfterHours: (ctx.staleAfterMs ?? STALE_AFTER_MS) / HOUR_MS,
          sample,
          lastPull: pulled === null ? null : new Date(pulled).toISOString(),
          curl: `curl -H "X-API-KEY: YOUR_KEY" "${ctx.baseUrl(req)}/api/v1/grid/system-state?start=${day}&end=${next}"`,
          notice: notice(req),
        }),
      );
    },
  });
  return { path: "/dashboard", methods: ["GET", "HEAD"], scope: null, handler };
}
