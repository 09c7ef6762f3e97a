/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (docs/mcp.md), served by this process.
 * The caller's key comes as `X-API-KEY` or `Authorization: Bearer <key>`; a missing or refused
 * one is the API's 401 with its words. Each HTTP request gets its own server and transport
 * (stateless, JSON answers), so any process of a cluster answers any request. A tool call is the
 * API request it makes, over this server's loopback address with the same key: counted against
 * the key's limits in the dataset's scope, and refused (429, revoked) as the API refuses it.
 */
import type { IncomingMessage } from "node:http";
import type { DatasetDoc } from "../datasets/dataset.ts";
import { HttpError } from "../http/http-error.ts";
import { ownOrigin } from "../http/own-origin.ts";
import type { Route } from "../http/router.ts";
import type { KeyRegistry } from "../keys/key-registry.ts";
import { apiCaller } from "./api-caller.ts";

// The SDK (with zod and ajv: a quarter of the modules a server loads, about 0.6 s of CPU) is
// loaded by the first request to /mcp, so a server nobody asks over MCP starts without it.
const loadSdk = () =>
  Promise.all([import("@modelcontextprotocol/sdk/server/streamableHttp.js"), import("./mcp-server.ts")]);

/** Where the endpoint is. */
export const MCP_PATH = "/mcp";

/** The key a request presents: `X-API-KEY`, else a bearer token. */
export function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers["x-api-key"];
  if (header !== undefined) return Array.isArray(header) ? header.join(",") : header;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  return bearer?.[1];
}

/** The `/mcp` route; `publicBase` names the API's address in the URLs the tools give people. */
export function mcpRoute(options: {
  registry: KeyRegistry;
  datasets: readonly DatasetDoc[];
  publicBase: (req: IncomingMessage) => string;
}): Route {
  return {
    path: MCP_PATH,
    methods: ["GET", "POST", "DELETE"],
    // The key is checked here; what counts against its limits are the API requests tools make.
    scope: null,
    handler: async (req, reply, ctx) => {
      const key = presentedKey(req);
      const auth = options.registry.authenticate(key);
      if (!auth.ok) {
        req.resume();
        const detail =
          auth.reason === "missing" ? "Authentication credentials were not provided." : "Invalid API key.";
        throw new HttpError(401, detail, { headers: { "WWW-Authenticate": "Bearer" } });
      }
      ctx.keyPrefix = auth.caller.prefix;
      const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadSdk();
      const api = apiCaller(ownOrigin(req), key!, options.publicBase(req));
      const mcp = createMcpServer(options.datasets, api);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.res.on("close", () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, reply.res);
    },
  };
}
