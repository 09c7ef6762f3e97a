/** The API keys pages: the list with the create form, the one-time display, the revoke confirmation. */
import { type Html, html, responsiveTable } from "../html.ts";
import { csrfField, layout, type PageContent, type Viewer } from "../layout.ts";
import { confirmPage } from "./confirm-page.ts";
import { when } from "./format.ts";

/** A key as the list shows it. */
export interface KeyRow {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly created: string;
  readonly lastUsed: string | null;
  readonly revoked: string | null;
  /** Per scope: the limit per 60 s, and whether it is the key's own rather than the default. */
  readonly limits: readonly { scope: string; limit: number; own: boolean }[];
}

/** The limits of a key as compact text. */
export function limitsCell(row: KeyRow) {
  return html`<ul class="limits">
    ${row.limits.map(
      (l) =>
        html`<li>
          <span class="scope">${l.scope}</span>
          ${l.limit}${l.own ? html`<abbr title="this key's own limit">*</abbr>` : ""}
        </li>`,
    )}
  </ul>`;
}

function keyRow(k: KeyRow): Html {
  return html`<tr class="${k.revoked === null ? "" : "revoked"}">
    <td data-label="Name">${k.name}</td>
    <td data-label="Prefix"><code>${k.prefix}…</code></td>
    <td data-label="Created">${when(k.created)}</td>
    <td data-label="Last used">${when(k.lastUsed)}</td>
    <td data-label="Status">
      ${k.revoked === null ? html`<span class="badge ok">active</span>` : html`<span class="badge">revoked</span> ${when(k.revoked)}`}
    </td>
    <td data-label="Limits / 60 s">${limitsCell(k)}</td>
    <td class="actions">
      ${
        k.revoked === null
          ? html`<a class="button danger small" href="/dashboard/keys/revoke?id=${k.id}">Revoke</a>`
          : ""
      }
    </td>
  </tr>`;
}

function newKeySection(viewer: Viewer, active: number): Html {
  return html`<section class="card">
    <h1>API keys</h1>
    <p class="lead">
      Send a key in the <code>X-API-KEY</code> header of every request. You have ${active} active
      ${active === 1 ? "key" : "keys"}.
    </p>
    <form method="post" action="/dashboard/keys" class="inline-form">
      ${csrfField(viewer)}
      <label for="key-name">New key's name</label>
      <input id="key-name" name="name" maxlength="100" required placeholder="e.g. research laptop" />
      <button type="submit">Create New Key</button>
    </form>
  </section>`;
}

function keyListSection(keys: readonly KeyRow[]): Html {
  return html`<section class="card">
    <h2>Your keys</h2>
    ${
      keys.length === 0
        ? html`<p class="empty">No keys yet. Name one above and press Create New Key.</p>`
        : html`${responsiveTable(["Name", "Prefix", "Created", "Last used", "Status", "Limits / 60 s", ""], keys.map(keyRow))}
            <p class="hint">
              ${
                keys.some((k) => k.limits.some((l) => l.own))
                  ? "* marks a limit set for that key; the others are the service's defaults."
                  : "These are the service's default limits."
              }
              Ask an admin for higher limits.
            </p>`
    }
  </section>`;
}

/** The account's keys and the form that creates one. */
export function keysPage(options: {
  viewer: Viewer;
  keys: readonly KeyRow[];
  notice?: PageContent["notice"];
}): string {
  const { viewer, keys } = options;
  const active = keys.filter((k) => k.revoked === null).length;
  return layout({
    title: "API keys",
    viewer,
    current: "keys",
    notice: options.notice,
    body: html`${newKeySection(viewer, active)} ${keyListSection(keys)}`,
  });
}

/** The page that shows a new key, once. `key` is undefined when it was shown already. */
export function keyCreatedPage(options: {
  viewer: Viewer;
  name?: string;
  key?: string;
  baseUrl: string;
}): string {
  const { viewer, key } = options;
  const body =
    key === undefined
      ? html`<section class="card narrow">
          <h1>Nothing to show</h1>
          <p>
            A new key is shown only once, right after it is created, and this one has been shown already. If
            you did not store it, revoke it and create another.
          </p>
          <p><a class="button" href="/dashboard/keys">Back to your keys</a></p>
        </section>`
      : html`<section class="card narrow">
          <h1>Your new key</h1>
          <p class="lead">Key <strong>${options.name ?? ""}</strong> is ready.</p>
          <div class="secret">
            <code id="new-key">${key}</code>
            <button type="button" class="copy" data-copy="new-key" hidden>Copy</button>
          </div>
          <p class="warning" role="alert">
            <strong>This is the only time the full key is shown.</strong> Store it now, for example in a
            password manager; it will not be shown again, not even on reload.
          </p>
          <p>Try it:</p>
          <pre
            class="command"
          ><code>curl -H "X-API-KEY: ${key}" "${options.baseUrl}/api/v1/datasets"</code></pre>
          <p><a class="button" href="/dashboard/keys">I have stored it: back to your keys</a></p>
        </section>`;
  return layout({ title: "New key", viewer, current: "keys", body });
}

/** The confirmation step before a key is revoked. */
export function revokePage(options: { viewer: Viewer; key: KeyRow }): string {
  const { key } = options;
  return confirmPage({
    viewer: options.viewer,
    current: "keys",
    title: "Revoke key",
    question: "Revoke this key?",
    lead: html`<strong>${key.name}</strong> · <code>${key.prefix}…</code> · created ${when(key.created)} ·
      last used ${when(key.lastUsed)}`,
    warning: html`Revocation is immediate and cannot be undone: the next request with this key gets
      <code>401 Invalid API key.</code>`,
    action: "/dashboard/keys/revoke",
    id: key.id,
    cancel: "/dashboard/keys",
  });
}
