/** Reading the Markdown tables of the docs, for the tests that keep them equal to the code. */

/**
 * The cells of a Markdown table's rows (the rule row left out), whitespace-trimmed: what a check
 * compares, since prettier re-aligns the page.
 */
export function tableCells(markdown: string): string[][] {
  return markdown
    .split("\n")
    .filter((l) => l.startsWith("|") && !/^\|\s*-/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

/** The cells of every table between `<!-- fields: <id> <interval> -->` and `<!-- /fields -->`, per marker. */
export function fieldTableCells(readme: string): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const match of readme.matchAll(/<!-- fields: (\S+) (1h|1d) -->\n[\s\S]*?<!-- \/fields -->/g))
    out.set(`${match[1]} ${match[2]}`, tableCells(match[0]));
  return out;
}

/** The table between `<!-- bounds -->` and `<!-- /bounds -->` of a page, or undefined. */
export function markedBoundsTable(page: string): string | undefined {
  return /<!-- bounds -->\n[\s\S]*?<!-- \/bounds -->/.exec(page)?.[0];
}
