/** The sign-in and change-password pages. */
import { MIN_PASSWORD_LENGTH } from "../../accounts/password.ts";
import { html } from "../html.ts";
import { csrfField, layout, type PageContent, type Viewer } from "../layout.ts";

/** The sign-in form; `token` is the double-submit value also sent as a cookie. */
export function signInPage(options: {
  token: string;
  username?: string;
  error?: string;
  notice?: PageContent["notice"];
}): string {
  return layout({
    title: "Sign in",
    viewer: null,
    notice: options.error === undefined ? options.notice : { kind: "error", text: options.error },
    body: html`<section class="card narrow">
      <h1>Sign in</h1>
      <p class="lead">Create and manage the API keys your scripts use.</p>
      <form method="post" action="/dashboard/sign-in" class="stack">
        <input type="hidden" name="csrf" value="${options.token}" />
        <label for="username">Username</label>
        <input
          id="username"
          name="username"
          autocomplete="username"
          autocapitalize="none"
          spellcheck="false"
          required
          value="${options.username ?? ""}"
          ${options.username ? "" : html` autofocus`}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required${options.username ? html` autofocus` : ""}
        />
        <button type="submit">Sign in</button>
      </form>
      <p class="hint">No account yet? Your operator creates one and gives you a one-time password.</p>
    </section>`,
  });
}

/** The change-password form; `forced` when a one-time password must be replaced first. */
export function passwordPage(options: { viewer: Viewer; forced: boolean; error?: string }): string {
  const page: PageContent = {
    title: "Change password",
    viewer: options.viewer,
    current: "password",
    notice: options.error === undefined ? undefined : { kind: "error", text: options.error },
    body: html`<section class="card narrow">
      <h1>${options.forced ? "Choose your password" : "Change password"}</h1>
      ${
        options.forced
          ? html`<p class="lead">
              You signed in with a one-time password. Choose your own before you go on.
            </p>`
          : html`<p class="lead">Changing your password signs out every other browser.</p>`
      }
      <form method="post" action="/dashboard/password" class="stack">
        ${csrfField(options.viewer)}
        <input type="text" name="username" value="${options.viewer.account}" autocomplete="username" hidden />
        <label for="current_password">${options.forced ? "One-time password" : "Current password"}</label>
        <input
          id="current_password"
          name="current_password"
          type="password"
          autocomplete="current-password"
          required
        />
        <label for="new_password">New password</label>
        <input
          id="new_password"
          name="new_password"
          type="password"
          autocomplete="new-password"
          minlength="${MIN_PASSWORD_LENGTH}"
          required
          aria-describedby="password-rule"
        />
        <p id="password-rule" class="hint">
          At least ${MIN_PASSWORD_LENGTH} characters; common and easily guessed passwords are refused. A
          passphrase of a few words is easiest.
        </p>
        <label for="confirm_password">New password again</label>
        <input
          id="confirm_password"
          name="confirm_password"
          type="password"
          autocomplete="new-password"
          minlength="${MIN_PASSWORD_LENGTH}"
          required
        />
        <button type="submit">Save password</button>
      </form>
    </section>`,
  };
  return layout(page);
}
