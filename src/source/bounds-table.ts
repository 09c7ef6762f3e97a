/** The bounds table of docs/data.md ("Bounds"), written from `bounds.ts`. */
import { allBounds } from "./bounds.ts";

const MARKER = /<!-- bounds -->\n[\s\S]*?<!-- \/bounds -->/;

/** The Markdown table of every column's bounds. */
export function boundsTable(): string {
  const rows = [...allBounds()].map(
    ([column, { min, max, unit, why }]) => `| \`${column}\` | ${min} | ${max} | ${unit} | ${why} |`,
  );
  return [
    "| column | min | max | unit | where the bound comes from |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/** `page` with its marked bounds table rewritten. */
export function withBoundsTable(page: string): string {
  if (!MARKER.test(page)) throw new RangeError("The page has no <!-- bounds --> marker");
  return page.replace(MARKER, `<!-- bounds -->\n\n${boundsTable()}\n\n<!-- /bounds -->`);
}
