/** The frame every dashboard page shares: head, header with navigation, and a notice line. */
import { html, type Html } from "./html.ts";

/** Who is looking, for the navigation; null on pages shown before sign-in. */
export interface Viewer {
  readonly account: string;
  readonly admin: boolean;
  /** The anti-forgery token for this session's forms. */
  readonly csrf: string;
}

/** What a page puts in the frame. */
export interface PageContent {
  readonly title: string;
  readonly viewer: Viewer | null;
  /** The navigation entry to mark as current. */
  readonly current?: "home" | "explore" | "keys" | "webhooks" | "admin" | "password";
  readonly notice?: { readonly kind: "ok" | "error"; readonly text: string };
  readonly body: Html;
  /** Scripts of the service's own beside the dashboard's, each deferred. */
  readonly scripts?: readonly string[];
}

/** The hidden field every state-changing form carries. */
export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="csrf" value="${viewer.csrf}" />`;
}

function nav(viewer: Viewer, current: PageContent["current"]): Html {
  const item = (href: string, id: PageContent["current"], label: string) =>
    html`<a href="${href}" ${current === id ? html` aria-current="page"` : ""}>${label}</a>`;
  return html`<nav aria-label="Dashboard">
      ${item("/dashboard", "home", "Overview")} ${item("/dashboard/explore", "explore", "Explore")}
      ${item("/dashboard/keys", "keys", "API keys")} ${item("/dashboard/webhooks", "webhooks", "Webhooks")}
      ${viewer.admin ? item("/dashboard/admin", "admin", "Admin") : ""}
    </nav>
    <div class="account">
      <span class="who">${viewer.account}</span>
      ${item("/dashboard/password", "password", "Password")}
      <form method="post" action="/dashboard/sign-out">
        ${csrfField(viewer)}<button class="link" type="submit">Sign out</button>
      </form>
    </div>`;
}

/** A whole HTML document. */
export function layout(page: PageContent): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${page.title} · Grid Data Service</title>
        <link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        <script src="/dashboard/assets/dashboard.js" defer></script>
        ${(page.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/dashboard"
            ><span class="mark" aria-hidden="true"></span>Grid Data Service</a
          >
          ${page.viewer === null ? "" : nav(page.viewer, page.current)}
        </header>
        <main>
          ${page.notice === undefined ? "" : html`<p class="notice ${page.notice.kind}" role="${page.notice.kind === "error" ? "alert" : "status"}">${page.notice.text}</p>`}
          ${page.body}
        </main>
        <footer>
          <a href="/docs">API reference</a> · <a href="/api/v1/openapi.json">OpenAPI JSON</a> ·
          <a href="/healthz">Service health</a>
        </footer>
      </body>
    </html> `.text;
}
