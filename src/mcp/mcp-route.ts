/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (docs/mcp.md), served by this process.
 * The caller's key comes as `X-API-KEY` or `Authorization: Bearer <key>`, checked by the
 * pipeline's guard as any key is (a 401 with the API's words), and each message (each HTTP
 * request) counts against the key's `metadata` limit (a 429 past it). Each HTTP request gets its
 * own server and transport (stateless, JSON answers), so any process of a cluster answers any
 * request. A tool call is also the API request it makes, in-process for the same key: counted
 * against the key's limits in the dataset's scope, and refused (429, revoked) as the API refuses it.
 */
import type { IncomingMessage } from "node:http";
import type { DatasetDefinition } from "../datasets/registry.ts";
import type { Route } from "../http/router.ts";
import { inProcessApi } from "./api-caller.ts";

// The SDK (with zod and ajv: a quarter of the modules a server loads, about 0.6 s of CPU) is
// loaded by the first request to /mcp, so a server nobody asks over MCP starts without it.
const loadSdk = () =>
  Promise.all([import("@modelcontextprotocol/sdk/server/streamableHttp.js"), import("./mcp-server.ts")]);

/** Where the endpoint is. */
export const MCP_PATH = "/mcp";

/** The `/mcp` route; `publicBase` names the API's address in the URLs the tools give people. */
export function mcpRoute(options: {
  datasets: readonly DatasetDefinition[];
  publicBase: (req: IncomingMessage) => string;
}): Route {
  return {
    path: MCP_PATH,
    methods: ["GET", "POST", "DELETE"],
    // Each message counts as a catalog request does; a tool call counts besides as the API
    // request it makes.
    scope: "metadata",
    auth: "key-or-bearer",
    handler: async (req, reply, ctx) => {
      const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadSdk();
      const api = inProcessApi(ctx, ctx.caller!, options.publicBase(req));
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
      await transport.handleRequest(req, reply.handOver());
    },
  };
}
