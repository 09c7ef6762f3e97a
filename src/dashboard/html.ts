/**
 * HTML built from tagged templates: every interpolated value is escaped unless it is already
 * `Html` (built by this same tag), so user-supplied names can never become markup.
 */

/** Markup that is safe to insert as it is. */
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an element's content or a quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return "";
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join("");
  return escapeHtml(String(part));
}

/** The template tag: `html\`<p>${name}</p>\``; arrays are joined, null and false render nothing. */
export function html(strings: TemplateStringsArray, ...values: readonly Part[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Html(out);
}

/**
 * A table that reads as cards on a phone (`responsive`): its column headings (an empty one heads
 * the actions column, named for screen readers only) and its rows.
 */
export function responsiveTable(headings: readonly string[], rows: readonly Html[]): Html {
  const head = headings.map((h) =>
    h === "" ? html`<th><span class="visually-hidden">Actions</span></th>` : html`<th>${h}</th>`,
  );
  return html`<table class="responsive">
    <thead>
      <tr>
        ${head}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}
