/**
 * How the MCP tools reach the API: a GET of one of its paths for the caller, answered as the API
 * answers (status, JSON body, headers). On the service's own `/mcp`, in-process for the key that
 * sent the message (`RequestContext.call`): the same route, key limits, counting and access-log
 * line as any request with that key, and no second request; for `npm run mcp` (stdio), over HTTP
 * to the service at `GDS_URL`, with the key.
 */
import type { RequestContext } from "../http/router.ts";
import type { Caller } from "../keys/key-registry.ts";

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

const suffix = (path: string, query: URLSearchParams) => {
  const q = query.toString();
  return q === "" ? path : `${path}?${q}`;
};

// An answer's body as JSON, or its first characters as the detail of one that is not.
function bodyOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 500) };
  }
}

/** The API of this process, for `caller`; `publicBase` names it to people. */
export function inProcessApi(request: RequestContext, caller: Caller, publicBase: string): ApiCaller {
  const pub = publicBase.replace(/\/+$/, "");
  return {
    async get(path, query) {
      const answer = await request.call(caller, path, query);
      return {
        status: answer.status,
        body: bodyOf(answer.body.toString()),
        retryAfter: answer.headers["retry-after"] ?? null,
      };
    },
    url: (path, query) => pub + suffix(path, query),
  };
}

/** The API of the service at `origin`, over HTTP with `key` (`npm run mcp`). */
export function remoteApi(origin: string, key: string): ApiCaller {
  const base = origin.replace(/\/+$/, "");
  return {
    async get(path, query) {
      const res = await fetch(base + suffix(path, query), {
        headers: { "X-API-KEY": key, Accept: "application/json" },
        signal: AbortSignal.timeout(120_000),
      });
      return {
        status: res.status,
        body: bodyOf(await res.text()),
        retryAfter: res.headers.get("retry-after"),
      };
    },
    url: (path, query) => base + suffix(path, query),
  };
}
