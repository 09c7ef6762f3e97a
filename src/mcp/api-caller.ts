/**
 * How the MCP tools reach the API: a GET of one of its paths with the caller's key, answered as
 * the API answers (status, JSON body, headers). On the service's own `/mcp`, over this server's
 * loopback address, so a tool call goes through the same key check, limits and counting as any
 * request; for `npm run mcp`, over HTTP to `GDS_URL`.
 */

/** The API's answer to one request. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly retryAfter: string | null;
}

/** A GET of `path` with `query`; `url` is the public address of the same request, for people. */
export interface ApiCaller {
  get(path: string, query: URLSearchParams): Promise<ApiAnswer>;
  url(path: string, query: URLSearchParams): string;
}

/** A caller of the API at `origin` (where requests go) with `key`; `publicBase` names it to people. */
export function apiCaller(origin: string, key: string, publicBase = origin): ApiCaller {
  const base = origin.replace(/\/+$/, "");
  const pub = publicBase.replace(/\/+$/, "");
  const suffix = (path: string, query: URLSearchParams) => {
    const q = query.toString();
    return q === "" ? path : `${path}?${q}`;
  };
  return {
    async get(path, query) {
      const res = await fetch(base + suffix(path, query), {
        headers: { "X-API-KEY": key, Accept: "application/json" },
      });
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = { detail: text.slice(0, 500) };
      }
      return { status: res.status, body, retryAfter: res.headers.get("retry-after") };
    },
    url: (path, query) => pub + suffix(path, query),
  };
}
