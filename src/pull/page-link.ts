/**
 * The CSV link of one of the portal's graph pages: the first `<a href>` whose path ends in `.csv`,
 * resolved against the page's address, on the page's own host. The portal moves its files between
 * monthly upload folders and renames them (a WordPress re-upload becomes `Name-1.csv`); the page
 * always links the current one.
 */

const ANCHOR = /<a\b[^>]*?\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", quot: '"', apos: "'", lt: "<", gt: ">" };

// The character references an attribute value may hold (`&amp;`, `&#38;`, `&#x26;`).
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** The page's CSV link, absolute, or undefined when it has none on its own host. */
export function csvLinkOf(html: string, pageUrl: string): string | undefined {
  const page = new URL(pageUrl);
  for (const match of html.matchAll(ANCHOR)) {
    const href = decodeEntities((match[1] ?? match[2] ?? match[3] ?? "").trim());
    let url: URL;
    try {
      url = new URL(href, page);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    if (url.hostname !== page.hostname) continue;
    if (!url.pathname.toLowerCase().endsWith(".csv")) continue;
    url.hash = "";
    return url.href;
  }
  return undefined;
}
