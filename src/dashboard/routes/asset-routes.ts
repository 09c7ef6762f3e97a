/** The dashboard's static files: one stylesheet, two scripts (conveniences only), one icon. */
import { readFileSync } from "node:fs";
import type { Route } from "../../http/router.ts";
import { EntityTag } from "../../http/entity-tag.ts";
import { send } from "../../http/send.ts";
import { SECURITY_HEADERS } from "../dashboard-http.ts";

const asset = (name: string, type: string) => {
  const body = readFileSync(new URL(`../assets/${name}`, import.meta.url));
  return { type, body, etag: EntityTag.of(body, 27) };
};

/** Read once at start. */
const ASSETS = {
  "dashboard.css": asset("dashboard.css", "text/css; charset=utf-8"),
  "dashboard.js": asset("dashboard.js", "text/javascript; charset=utf-8"),
  "explore.js": asset("explore.js", "text/javascript; charset=utf-8"),
  "favicon.svg": asset("favicon.svg", "image/svg+xml"),
};

/** `/dashboard/assets/*`, and `/favicon.ico`, which browsers ask for on their own. */
export function assetRoutes(): Route[] {
  const paths: [string, (typeof ASSETS)[keyof typeof ASSETS]][] = [
    ...Object.entries(ASSETS).map(([name, a]) => [`/dashboard/assets/${name}`, a] as [string, typeof a]),
    ["/favicon.ico", ASSETS["favicon.svg"]],
  ];
  return paths.map(([path, a]) => ({
    path,
    methods: ["GET", "HEAD"],
    scope: null,
    handler: (req, reply) =>
      send(req, reply, {
        body: a.body,
        contentType: a.type,
        etag: a.etag,
        cacheControl: "no-cache",
        headers: SECURITY_HEADERS,
      }),
  }));
}
