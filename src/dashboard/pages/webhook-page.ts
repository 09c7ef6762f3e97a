/**
 * One webhook's pages: its settings, its actions (test event, pause or resume, rotate the secret)
 * and its deliveries with every attempt (resend), and the confirmation before it is deleted.
 */
import type { Delivery } from "../../webhooks/outbox.ts";
import { stateOf, type Subscription } from "../../webhooks/subscriptions.ts";
import { type Html, html, responsiveTable } from "../html.ts";
import { csrfField, layout, type PageContent, type Viewer } from "../layout.ts";
import { confirmPage } from "./confirm-page.ts";
import { when } from "./format.ts";

/** A subscription's state: enabled, paused or disabled. */
export function stateBadge(s: Subscription): Html {
  const state = stateOf(s);
  return html`<span class="badge ${state === "enabled" ? "ok" : "warn"}">${state}</span>`;
}

/** How a delivery stands: pending, delivered, failed or gone. */
export function outcomeBadge(d: Delivery): Html {
  const kind = d.state === "delivered" ? "ok" : d.state === "pending" ? "" : "warn";
  return html`<span class="badge ${kind}">${d.state}</span>`;
}

function attemptsCell(d: Delivery): Html {
  if (d.attempts.length === 0) return html`<span class="muted">none yet</span>`;
  return html`<ol class="attempts">
    ${d.attempts.map(
      (a) =>
        html`<li>
          ${when(a.at)} ·
          ${a.status === null ? html`<span class="muted">${a.error ?? "no answer"}</span>` : html`<strong>${a.status}</strong>`}
          · ${a.ms} ms
        </li>`,
    )}
  </ol>`;
}

function deliveryRow(viewer: Viewer, subscription: string, d: Delivery): Html {
  return html`<tr>
    <td data-label="Event"><code>${d.event.type}</code></td>
    <td data-label="Made">${when(d.created)}</td>
    <td data-label="State">${outcomeBadge(d)}</td>
    <td data-label="Attempts">${attemptsCell(d)}</td>
    <td data-label="Next attempt">
      ${d.state === "pending" ? when(d.next_at) : html`<span class="muted">none</span>`}
    </td>
    <td class="actions">
      ${
        d.state === "pending"
          ? ""
          : html`<form method="post" action="/dashboard/webhooks/resend">
              ${csrfField(viewer)}<input type="hidden" name="id" value="${subscription}" />
              <input type="hidden" name="delivery" value="${d.id}" />
              <button type="submit" class="small secondary">Resend</button>
            </form>`
      }
    </td>
  </tr>`;
}

function actions(viewer: Viewer, s: Subscription): Html {
  const post = (action: string, label: string, extra: Html | string = "") =>
    html`<form method="post" action="/dashboard/webhooks/${action}">
      ${csrfField(viewer)}<input type="hidden" name="id" value="${s.id}" />${extra}
      <button type="submit" class="secondary">${label}</button>
    </form>`;
  const active = s.enabled && s.paused === undefined;
  return html`<div class="buttons">
    ${post("test", "Send test event")}
    ${post("state", active ? "Pause" : "Resume", html`<input type="hidden" name="action" value="${active ? "pause" : "resume"}" />`)}
    ${post("rotate", "Rotate secret")}
    <a class="button danger" href="/dashboard/webhooks/delete?id=${s.id}">Delete</a>
  </div>`;
}

/** One webhook: its settings, its actions, and its deliveries with every attempt, newest first. */
export function webhookPage(options: {
  viewer: Viewer;
  subscription: Subscription;
  deliveries: readonly Delivery[];
  notice?: PageContent["notice"];
}): string {
  const { viewer, subscription: s } = options;
  const rotated = s.secrets.filter((x) => x.expires !== undefined);
  return layout({
    title: "Webhook",
    viewer,
    current: "webhooks",
    notice: options.notice,
    body: html`<section class="card">
        <h1>Webhook</h1>
        <p><code class="url">${s.url}</code></p>
        <p class="lead">
          ${stateBadge(s)} · events ${s.events.join(", ")} · datasets ${s.datasets?.join(", ") ?? "all"} ·
          ${s.min_band === undefined ? "" : html`band changes reaching ${s.min_band} ·`} created
          ${when(s.created)}
          ${rotated.map((x) => html` · a rotated secret signs too until ${when(x.expires!)}`)}
        </p>
        ${actions(viewer, s)}
      </section>
      <section class="card">
        <h2>Deliveries</h2>
        ${
          options.deliveries.length === 0
            ? html`<p class="empty">No deliveries yet. Send a test event to see one.</p>`
            : html`${responsiveTable(
                ["Event", "Made", "State", "Attempts", "Next attempt", ""],
                options.deliveries.map((d) => deliveryRow(viewer, s.id, d)),
              )}`
        }
      </section>`,
  });
}

/** The confirmation step before a webhook is deleted. */
export function deleteWebhookPage(options: { viewer: Viewer; subscription: Subscription }): string {
  const { subscription: s } = options;
  return confirmPage({
    viewer: options.viewer,
    current: "webhooks",
    title: "Delete webhook",
    question: "Delete this webhook?",
    lead: html`<code class="url">${s.url}</code> · ${s.events.join(", ")}`,
    warning: "Nothing more is sent to it, and deliveries waiting for it are given up. This cannot be undone.",
    action: "/dashboard/webhooks/delete",
    id: s.id,
    cancel: `/dashboard/webhooks/view?id=${s.id}`,
  });
}
