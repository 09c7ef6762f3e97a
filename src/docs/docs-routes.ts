/**
 * `GET /docs`: the OpenAPI document rendered by Swagger UI (`swagger-ui-dist` from the npm
 * registry: the renderer most API users know, with a "Try it out" that sends the key in the
 * X-API-KEY header from the page's memory), served from this service's own files. No key is
 * needed to read it. The page loads nothing from another host.
 *
 * Content-Security-Policy: scripts from this origin only, no inline script. Swagger UI (React)
 * sets `style` attributes on its elements and draws its icons as `data:` SVG images, so styles
 * allow 'unsafe-inline' and images `data:`; nothing else is loosened.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Lru } from "../cache/lru.ts";
import type { Route } from "../http/router.ts";
import { EntityTag } from "../http/entity-tag.ts";
import { send } from "../http/send.ts";

/** The page's policy (see above). */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const HEADERS = {
  "Content-Security-Policy": DOCS_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>API reference · Grid Data Service</title>
    <link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <link rel="stylesheet" href="/docs/assets/docs.css" />
  </head>
  <body>
    <header class="docs-top">
      <a class="brand" href="/docs">Grid Data Service · API reference</a>
      <a href="/dashboard/keys">Get a key</a>
      <a href="/api/v1/openapi.json">OpenAPI JSON</a>
    </header>
    <p class="docs-note">
      Every request but this page, the OpenAPI document and /healthz needs your key: press
      <strong>Authorize</strong>, paste it, then <strong>Try it out</strong> on an operation. The key stays in
      this page only.
    </p>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/docs.js"></script>
  </body>
</html>
`;

type Asset = { readonly body: Buffer; readonly type: string; readonly etag: EntityTag };

function asset(path: string, type: string): Asset {
  const body = readFileSync(path);
  return { body, type, etag: EntityTag.of(body, 27) };
}

// Read on first use: a server that never serves /docs never holds Swagger UI's 2 MB.
function assets(): Record<string, Asset> {
  const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const own = (name: string) => join(import.meta.dirname, "assets", name);
  return {
    "swagger-ui-bundle.js": asset(join(dist, "swagger-ui-bundle.js"), "text/javascript; charset=utf-8"),
    "swagger-ui.css": asset(join(dist, "swagger-ui.css"), "text/css; charset=utf-8"),
    "docs.js": asset(own("docs.js"), "text/javascript; charset=utf-8"),
    "docs.css": asset(own("docs.css"), "text/css; charset=utf-8"),
  };
}

/** `/docs` and its assets (cacheable for a day, with ETags, compressed once). */
export function docsRoutes(): Route[] {
  let loaded: Record<string, Asset> | undefined;
  const compressed = new Lru<string, Buffer>(8 * 1024 * 1024, (body) => body.length);
  const page = Buffer.from(PAGE);
  const pageTag = EntityTag.of(page, 27);
  const assetRoute = (name: string): Route => ({
    path: `/docs/assets/${name}`,
    methods: ["GET", "HEAD"],
    scope: null,
    handler: (req, reply) => {
      const a = (loaded ??= assets())[name]!;
      return send(req, reply, {
        body: a.body,
        contentType: a.type,
        etag: a.etag,
        cacheControl: "public, max-age=86400",
        headers: HEADERS,
        cache: compressed,
      });
    },
  });
  return [
    {
      path: "/docs",
      methods: ["GET", "HEAD"],
      scope: null,
      handler: (req, reply) =>
        send(req, reply, {
          body: page,
          contentType: "text/html; charset=utf-8",
          etag: pageTag,
          cacheControl: "no-cache",
          headers: HEADERS,
        }),
    },
    ...["swagger-ui-bundle.js", "swagger-ui.css", "docs.js", "docs.css"].map(assetRoute),
  ];
}
