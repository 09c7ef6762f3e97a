/** How the dashboard writes times and numbers. */
import { html, type Html } from "../html.ts";

/** An instant as `2026-11-22 18:03 UTC` in a `<time>` element; "never" for null. */
export function when(iso: string | null, never = "never"): Html {
  if (iso === null) return html`<span class="muted">${never}</span>`;
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

/** A whole number with thousands separators. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}
