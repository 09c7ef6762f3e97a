/** The admin pages: every account and key with its use, account creation and control, key limits. */
import { type Html, html, responsiveTable } from "../html.ts";
import { csrfField, layout, type PageContent, type Viewer } from "../layout.ts";
import { count, when } from "./format.ts";
import type { KeyRow } from "./keys-page.ts";

/** An account as the admin page lists it. */
export interface AccountRow {
  readonly name: string;
  readonly admin: boolean;
  readonly disabled: string | null;
  readonly created: string;
  readonly mustChangePassword: boolean;
  readonly activeKeys: number;
  readonly requests7d: number;
}

/** A key with its account and use, for the admin page. */
export interface AdminKeyRow extends KeyRow {
  readonly account: string;
  readonly requests7d: number;
}

function accountRow(viewer: Viewer, a: AccountRow) {
  const action = a.disabled === null ? "disable" : "enable";
  return html`<tr class="${a.disabled === null ? "" : "revoked"}">
    <td data-label="Account" class="ident">${a.name}</td>
    <td data-label="Role">${a.admin ? "admin" : "user"}</td>
    <td data-label="Status">
      <span class="badges"
        >${a.disabled === null ? html`<span class="badge ok">active</span>` : html`<span class="badge">disabled</span>`}${a.mustChangePassword ? html` <span class="badge warn">one-time password</span>` : ""}</span
      >
    </td>
    <td data-label="Created">${when(a.created)}</td>
    <td data-label="Active keys">${a.activeKeys}</td>
    <td data-label="Requests (7 days)">${count(a.requests7d)}</td>
    <td class="actions">
      ${
        a.name === viewer.account
          ? html`<span class="muted">your account</span>`
          : html`<form method="post" action="/dashboard/admin/accounts/status">
              ${csrfField(viewer)}<input type="hidden" name="account" value="${a.name}" /><input
                type="hidden"
                name="action"
                value="${action}"
              /><button type="submit" class="small ${action === "disable" ? "danger" : "secondary"}">
                ${action === "disable" ? "Disable" : "Enable"}
              </button>
            </form>`
      }
    </td>
  </tr>`;
}

function keyRow(viewer: Viewer, k: AdminKeyRow) {
  return html`<tr class="${k.revoked === null ? "" : "revoked"}">
    <td data-label="Account" class="ident">${k.account}</td>
    <td data-label="Name">${k.name}</td>
    <td data-label="Prefix"><code>${k.prefix}…</code></td>
    <td data-label="Last used">${when(k.lastUsed)}</td>
    <td data-label="Status">
      ${k.revoked === null ? html`<span class="badge ok">active</span>` : html`<span class="badge">revoked</span>`}
    </td>
    <td data-label="Requests (7 days)">${count(k.requests7d)}</td>
    <td data-label="Limits / 60 s">
      ${
        k.revoked !== null
          ? html`<span class="muted">–</span>`
          : html`<form method="post" action="/dashboard/admin/keys/limits" class="limits-form">
              ${csrfField(viewer)}<input type="hidden" name="id" value="${k.id}" />${k.limits.map(
                (l) =>
                  html`<label
                    ><span class="scope">${l.scope}</span
                    ><input
                      name="${l.scope}"
                      inputmode="numeric"
                      pattern="[0-9]*"
                      size="6"
                      value="${l.own ? l.limit : ""}"
                      placeholder="${l.own ? "" : String(l.limit)}"
                      aria-label="${k.name}: ${l.scope} limit"
                  /></label>`,
              )}<button type="submit" class="small secondary">Save</button>
            </form>`
      }
    </td>
  </tr>`;
}

function newAccountSection(viewer: Viewer): Html {
  return html`<section class="card">
    <h1>Admin</h1>
    <form method="post" action="/dashboard/admin/accounts" class="inline-form">
      ${csrfField(viewer)}
      <label for="account-name">New account</label>
      <input
        id="account-name"
        name="name"
        required
        maxlength="64"
        pattern="[A-Za-z0-9][A-Za-z0-9._\\-]*"
        autocapitalize="none"
        spellcheck="false"
        placeholder="e.g. quant-desk"
      />
      <label class="check"><input type="checkbox" name="admin" value="true" /> admin</label>
      <button type="submit">Create account</button>
    </form>
    <p class="hint">
      A new account gets a one-time password, shown once on the next page; its user chooses their own at first
      sign-in.
    </p>
  </section>`;
}

function accountsSection(viewer: Viewer, accounts: readonly AccountRow[]): Html {
  return html`<section class="card">
    <h2>Accounts</h2>
    ${responsiveTable(
      ["Account", "Role", "Status", "Created", "Active keys", "Requests (7 days)", ""],
      accounts.map((a) => accountRow(viewer, a)),
    )}
    <p class="hint">
      Disabling an account ends its sessions and refuses its keys at once; enabling it restores both.
    </p>
  </section>`;
}

function keysSection(viewer: Viewer, keys: readonly AdminKeyRow[]): Html {
  return html`<section class="card">
    <h2>Keys</h2>
    ${
      keys.length === 0
        ? html`<p class="empty">No keys yet.</p>`
        : html`${responsiveTable(
              ["Account", "Name", "Prefix", "Last used", "Status", "Requests (7 days)", "Limits / 60 s"],
              keys.map((k) => keyRow(viewer, k)),
            )}
            <p class="hint">
              A limit left empty is the service's default (shown faint); a number is that key's own limit.
            </p>`
    }
  </section>`;
}

/** The admin overview. */
export function adminPage(options: {
  viewer: Viewer;
  accounts: readonly AccountRow[];
  keys: readonly AdminKeyRow[];
  notice?: PageContent["notice"];
}): string {
  const { viewer } = options;
  return layout({
    title: "Admin",
    viewer,
    current: "admin",
    notice: options.notice,
    body: html`${newAccountSection(viewer)} ${accountsSection(viewer, options.accounts)}
    ${keysSection(viewer, options.keys)}`,
  });
}

/** The page that shows a new account's one-time password, once. */
export function accountCreatedPage(options: {
  viewer: Viewer;
  account?: string;
  password?: string;
  signInUrl: string;
}): string {
  const body =
    options.password === undefined
      ? html`<section class="card narrow">
          <h1>Nothing to show</h1>
          <p>
            A one-time password is shown only once. Reset it with
            <code>npm run --silent accounts -- reset-password NAME</code> if it was lost.
          </p>
          <p><a class="button" href="/dashboard/admin">Back to admin</a></p>
        </section>`
      : html`<section class="card narrow">
          <h1>Account ${options.account ?? ""} created</h1>
          <p class="lead">
            Give its user this one-time password and the sign-in address <code>${options.signInUrl}</code>.
            They choose their own password at first sign-in.
          </p>
          <div class="secret">
            <code id="one-time-password">${options.password}</code
            ><button type="button" class="copy" data-copy="one-time-password" hidden>Copy</button>
          </div>
          <p class="warning" role="alert"><strong>This is the only time this password is shown.</strong></p>
          <p><a class="button" href="/dashboard/admin">Back to admin</a></p>
        </section>`;
  return layout({ title: "Account created", viewer: options.viewer, current: "admin", body });
}
