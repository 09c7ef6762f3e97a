/**
 * The account's webhooks with the form that makes one, and a new signing secret shown once. One
 * webhook's own pages are `webhook-page.ts`.
 */
import type { Delivery } from "../../webhooks/outbox.ts";
import { EVENT_TYPES, STRESS_BAND_NAMES, type Subscription } from "../../webhooks/subscriptions.ts";
import { type Html, html, responsiveTable } from "../html.ts";
import { csrfField, layout, type PageContent, type Viewer } from "../layout.ts";
import { when } from "./format.ts";
import { outcomeBadge, stateBadge } from "./webhook-page.ts";

/** The event types an owner chooses among (the test event is sent by its button). */
export const CHOSEN_EVENTS = EVENT_TYPES.filter((t) => t !== "webhook.test");

/** What the create form holds: empty at first, the user's input again after a refusal. */
export interface WebhookForm {
  readonly url: string;
  readonly events: readonly string[];
  readonly datasets: readonly string[];
  /** The grid-stress band a band change must reach; "" for every change. */
  readonly minBand: string;
}

const EMPTY_FORM: WebhookForm = { url: "", events: CHOSEN_EVENTS, datasets: [], minBand: "" };

const VERIFY_LINK = "https://www.standardwebhooks.com/";
function createSection(viewer: Viewer, form: WebhookForm, datasets: readonly string[]): Html {
  const box = (name: string, value: string, checked: boolean) =>
    html`<label class="check"
      ><input type="checkbox" name="${name}" value="${value}" ${checked ? html`checked` : ""} />
      <code>${value}</code></label
    >`;
  return html`<section class="card">
    <h1>Webhooks</h1>
    <p class="lead">
      Get a signed POST when data is published, Eskom issues a forecast, the grid-stress band or the
      load-shedding outlook's band moves, or load reduction starts or ends, instead of polling. Each delivery
      carries
      <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> as
      <a href="${VERIFY_LINK}">Standard Webhooks</a> defines them; verify it with their libraries.
    </p>
    <form method="post" action="/dashboard/webhooks" class="webhook-form">
      ${csrfField(viewer)}
      <label for="webhook-url">Your endpoint's URL</label>
      <input
        id="webhook-url"
        name="url"
        type="url"
        maxlength="2000"
        required
        placeholder="https://example.org/hooks/grid"
        value="${form.url}"
      />
      <fieldset>
        <legend>Events</legend>
        ${CHOSEN_EVENTS.map((t) => box("events", t, form.events.includes(t)))}
      </fieldset>
      <label for="webhook-band">Band changes (grid stress and the outlook)</label>
      <select id="webhook-band" name="min_band">
        <option value="">every change</option>
        ${STRESS_BAND_NAMES.slice(1).map(
          (band) =>
            html`<option value="${band}" ${form.minBand === band ? html`selected` : ""}>
              only when it reaches ${band} or above
            </option>`,
        )}
      </select>
      <fieldset>
        <legend>Datasets (none ticked: all)</legend>
        ${datasets.map((d) => box("datasets", d, form.datasets.includes(d)))}
      </fieldset>
      <button type="submit">Create webhook</button>
    </form>
  </section>`;
}

/** The last ended or pending delivery of each subscription, by its id. */
export type LastDeliveries = ReadonlyMap<string, Delivery>;

function listSection(subscriptions: readonly Subscription[], last: LastDeliveries): Html {
  const row = (s: Subscription) => {
    const latest = last.get(s.id);
    return html`<tr>
      <td data-label="URL"><code class="url">${s.url}</code></td>
      <td data-label="Events">${s.events.join(", ")}</td>
      <td data-label="State">${stateBadge(s)}</td>
      <td data-label="Created">${when(s.created)}</td>
      <td data-label="Last delivery">
        ${latest === undefined ? html`<span class="muted">none yet</span>` : html`${outcomeBadge(latest)} ${when(latest.created)}`}
      </td>
      <td class="actions">
        <a class="button small" href="/dashboard/webhooks/view?id=${s.id}">Deliveries</a>
      </td>
    </tr>`;
  };
  return html`<section class="card">
    <h2>Your webhooks</h2>
    ${
      subscriptions.length === 0
        ? html`<p class="empty">No webhooks yet. Give your endpoint's URL above.</p>`
        : responsiveTable(["URL", "Events", "State", "Created", "Last delivery", ""], subscriptions.map(row))
    }
  </section>`;
}

/** The account's webhooks and the form that makes one. */
export function webhooksPage(options: {
  viewer: Viewer;
  subscriptions: readonly Subscription[];
  last: LastDeliveries;
  datasets: readonly string[];
  form?: WebhookForm;
  notice?: PageContent["notice"];
}): string {
  return layout({
    title: "Webhooks",
    viewer: options.viewer,
    current: "webhooks",
    notice: options.notice,
    body: html`${createSection(options.viewer, options.form ?? EMPTY_FORM, options.datasets)}
    ${listSection(options.subscriptions, options.last)}`,
  });
}

/** The page that shows a new signing secret, once; `secret` is undefined when it was shown already. */
export function webhookSecretPage(options: { viewer: Viewer; url?: string; secret?: string }): string {
  const { viewer, secret } = options;
  const body =
    secret === undefined
      ? html`<section class="card narrow">
          <h1>Nothing to show</h1>
          <p>
            A signing secret is shown only once, right after it is made, and this one has been shown already.
            If you did not store it, rotate the webhook's secret to get a new one.
          </p>
          <p><a class="button" href="/dashboard/webhooks">Back to your webhooks</a></p>
        </section>`
      : html`<section class="card narrow">
          <h1>Your webhook's signing secret</h1>
          <p class="lead">For <code class="url">${options.url ?? ""}</code>:</p>
          <div class="secret">
            <code id="new-secret">${secret}</code>
            <button type="button" class="copy" data-copy="new-secret" hidden>Copy</button>
          </div>
          <p class="warning" role="alert">
            <strong>This is the only time the secret is shown.</strong> Give it to your endpoint, which
            verifies each delivery's <code>webhook-signature</code> with it; it will not be shown again.
          </p>
          <p><a class="button" href="/dashboard/webhooks">I have stored it: back to your webhooks</a></p>
        </section>`;
  return layout({ title: "Signing secret", viewer, current: "webhooks", body });
}
