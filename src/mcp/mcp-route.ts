/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (docs/mcp.md), served by this process.
 * The caller's key comes as `X-API-KEY` or `Authorization: Bearer <key>`, checked by the
 * pipeline's guard as any key is (a 401 with the API's words), and each message (one per HTTP
 * POST: batches are refused) counts against the key's `metadata` limit (a 429 past it). A request
 * from a browser page whose `Origin` the operator did not list in `CORS_ORIGINS` is refused with
 * 403 before its key is looked at, as the specification asks against DNS rebinding. Each request
 * gets its own server and transport (stateless, JSON answers, no event stream: GET is a 405), so
 * any process of a cluster answers any request. A tool call is also the API request it makes,
 * in-process for the same key: counted against the key's limits in the dataset's scope, and
 * refused (429, revoked) as the API refuses it.
 */
import type { IncomingMessage } from "node:http";
import type { DatasetDefinition } from "../datasets/registry.ts";
import { HttpError } from "../http/http-error.ts";
import type { Reply } from "../http/reply.ts";
import { readBounded } from "../http/request-body.ts";
import type { Route } from "../http/router.ts";
import { inProcessApi } from "./api-caller.ts";

// The SDK (with zod and ajv: a quarter of the modules a server loads, about 0.6 s of CPU) is
// loaded by the first request to /mcp, so a server nobody asks over MCP starts without it.
const loadSdk = () =>
  Promise.all([import("@modelcontextprotocol/sdk/server/streamableHttp.js"), import("./mcp-server.ts")]);

/** Where the endpoint is. */
export const MCP_PATH = "/mcp";

/** The largest message taken: a tool call's arguments are a few hundred bytes. */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** The refusal of a request from a page of an origin the operator did not list, or undefined. */
export function originRefusal(
  origin: string | undefined,
  allowed: ReadonlySet<string>,
): HttpError | undefined {
  if (origin === undefined || allowed.has(origin)) return undefined;
  return new HttpError(
    403,
    `Requests from the origin ${JSON.stringify(origin)} may not use ${MCP_PATH}: only the origins CORS_ORIGINS lists may.`,
  );
}

// A JSON-RPC error without an id, as the transport words its own.
function rpcError(reply: Reply, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  reply.end(status, body, { "Content-Type": "application/json" });
}

// The one JSON-RPC message a POST carries, or undefined once it was refused.
async function messageOf(req: IncomingMessage, reply: Reply): Promise<unknown> {
  const body = await readBounded(req, MAX_MESSAGE_BYTES);
  if (body === undefined) {
    rpcError(reply, 413, -32000, `Payload Too Large: a message is at most ${MAX_MESSAGE_BYTES} bytes`);
    return undefined;
  }
  let message: unknown;
  try {
    message = JSON.parse(body.toString("utf8"));
  } catch {
    rpcError(reply, 400, -32700, "Parse error: the body is not JSON");
    return undefined;
  }
  // Each message counts against the key's limit as one request: a batch would count many as one.
  if (Array.isArray(message) || message === null || typeof message !== "object") {
    rpcError(reply, 400, -32600, "Invalid Request: send one JSON-RPC message per request, not a batch");
    return undefined;
  }
  return message;
}

/** The `/mcp` route; `publicBase` names the API's address in the URLs the tools give people. */
export function mcpRoute(options: {
  datasets: readonly DatasetDefinition[];
  publicBase: (req: IncomingMessage) => string;
  /** The browser origins allowed (`CORS_ORIGINS`); a request with another `Origin` is a 403. */
  origins: ReadonlySet<string>;
}): Route {
  return {
    path: MCP_PATH,
    methods: ["POST"],
    // Each message counts as a catalog request does; a tool call counts besides as the API
    // request it makes.
    scope: "metadata",
    auth: "key-or-bearer",
    admit: (req) => originRefusal(req.headers.origin, options.origins),
    handler: async (req, reply, ctx) => {
      const message = await messageOf(req, reply);
      if (message === undefined) return;
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
      await transport.handleRequest(req, reply.handOver(), message);
    },
  };
}
