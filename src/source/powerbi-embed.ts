/**
 * Where a portal page's PowerBI report is (docs/data.md: "PowerBI reports"), read from what the
 * page embeds and nothing else. The page's iframe shows `https://app.powerbi.com/view?r=<token>`,
 * the token base64 JSON naming the report's resource key `k` and its tenant `t`; the viewer at that
 * address names the cluster that serves the report (`resolvedClusterUri`, a `-redirect` host under
 * `analysis.windows.net`), whose `-api` host answers the report's model and queries.
 */

/** A report a page embeds. */
export interface EmbeddedReport {
  /** The viewer's address, as the page gives it. */
  readonly viewUrl: string;
  /** The report's resource key: its public name, and the header every request carries. */
  readonly resourceKey: string;
  readonly tenant: string;
}

/** The host of the viewer every public report is embedded from. */
export const VIEWER_HOST = "app.powerbi.com";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMBED = /https:\/\/app\.powerbi\.com\/view\?r=[A-Za-z0-9%_=+/-]+/g;

// `&amp;` and the like, as an attribute holds them.
const unescaped = (text: string) =>
  text
    .replace(/&amp;/gi, "&")
    .replace(/&#x?0*3d;|&equals;/gi, "=")
    .replace(/&quot;/gi, '"');

// The token's JSON, or undefined when it is not a report's (base64 or base64url, padded or not).
function tokenOf(encoded: string): { k: string; t: string } | undefined {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(decodeURIComponent(encoded), "base64").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof json !== "object" || json === null) return undefined;
  const { k, t } = json as Record<string, unknown>;
  return typeof k === "string" && UUID.test(k) && typeof t === "string" && UUID.test(t)
    ? { k, t }
    : undefined;
}

/** The first report the page embeds (an iframe's or a link's address), or undefined when none. */
export function embeddedReportOf(html: string): EmbeddedReport | undefined {
  for (const match of unescaped(html).matchAll(EMBED)) {
    const viewUrl = match[0];
    const token = tokenOf(new URL(viewUrl).searchParams.get("r") ?? "");
    if (token !== undefined) return { viewUrl, resourceKey: token.k, tenant: token.t };
  }
  return undefined;
}

/**
 * The API root of the cluster the viewer names (`https://<cluster>-api.analysis.windows.net`), or
 * undefined when the viewer names none under `analysis.windows.net`: no other host is asked.
 */
export function clusterApiOf(viewerHtml: string): string | undefined {
  const named = /resolvedClusterUri\s*=\s*['"](https:\/\/[^'"]+)['"]/.exec(viewerHtml)?.[1];
  if (named === undefined) return undefined;
  let host: string;
  try {
    host = new URL(named).hostname;
  } catch {
    return undefined;
  }
  const cluster = /^([a-z0-9-]+?)(?:-redirect)?\.analysis\.windows\.net$/.exec(host)?.[1];
  return cluster === undefined ? undefined : `https://${cluster}-api.analysis.windows.net`;
}
