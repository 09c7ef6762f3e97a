/**
 * The account dashboard under `/dashboard`: sign-in, change password, the account's keys (create,
 * shown once, revoke), its webhooks and their deliveries, its use of the API and a look at the
 * data, and for admins every account and key. Server-rendered HTML that works without JavaScript; every state change is a POST carrying
 * an anti-forgery token. docs/dashboard.md documents the cookie, CSRF and sign-in rules.
 */
import type { Route } from "../http/router.ts";
import { createDashboardContext, type DashboardOptions } from "./dashboard-context.ts";
import { adminRoutes } from "./routes/admin-routes.ts";
import { assetRoutes } from "./routes/asset-routes.ts";
import { exploreRoutes } from "./routes/explore-route.ts";
import { homeRoute } from "./routes/home-route.ts";
import { keyRoutes } from "./routes/key-routes.ts";
import { sessionRoutes } from "./routes/session-routes.ts";
import { webhookRoutes } from "./routes/webhook-routes.ts";

export type { DashboardOptions } from "./dashboard-context.ts";

/** The dashboard's routes, for the service's route table. */
export function dashboardRoutes(options: DashboardOptions): Route[] {
  const ctx = createDashboardContext(options);
  return [
    homeRoute(ctx),
    ...exploreRoutes(ctx),
    ...sessionRoutes(ctx),
    ...keyRoutes(ctx),
    ...webhookRoutes(ctx),
    ...adminRoutes(ctx),
    ...assetRoutes(),
  ];
}
