/**
 * The confirmation step before something that cannot be undone (revoking a key, deleting a
 * webhook): what it is, what follows, and a form that posts the thing's id, beside a way back.
 */
import { type Html, html } from "../html.ts";
import { csrfField, layout, type PageContent, type Viewer } from "../layout.ts";

export function confirmPage(options: {
  viewer: Viewer;
  current: PageContent["current"];
  /** The page's title, and the button's words ("Revoke key"). */
  title: string;
  question: string;
  /** What is about to go, and what follows when it does. */
  lead: Html;
  warning: Html | string;
  /** Where the form posts, with `id`. */
  action: string;
  id: string;
  cancel: string;
}): string {
  const { viewer } = options;
  return layout({
    title: options.title,
    viewer,
    current: options.current,
    body: html`<section class="card narrow">
      <h1>${options.question}</h1>
      <p class="lead">${options.lead}</p>
      <p class="warning">${options.warning}</p>
      <form method="post" action="${options.action}" class="buttons">
        ${csrfField(viewer)}
        <input type="hidden" name="id" value="${options.id}" />
        <button type="submit" class="danger">${options.title}</button>
        <a class="button secondary" href="${options.cancel}">Cancel</a>
      </form>
    </section>`,
  });
}
