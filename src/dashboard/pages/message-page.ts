/** A page for something a person can act on: a refused form, a throttled sign-in, a missing page. */
import { html } from "../html.ts";
import { layout, type Viewer } from "../layout.ts";

/** A short page with a title, one sentence and a way back. */
export function messagePage(options: {
  title: string;
  text: string;
  viewer: Viewer | null;
  back?: string;
}): string {
  return layout({
    title: options.title,
    viewer: options.viewer,
    body: html`<section class="card narrow">
      <h1>${options.title}</h1>
      <p>${options.text}</p>
      <p><a class="button" href="${options.back ?? "/dashboard"}">Back</a></p>
    </section>`,
  });
}
