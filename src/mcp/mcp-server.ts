/**
 * One MCP server over the official TypeScript SDK (`@modelcontextprotocol/sdk`): the tools of
 * `mcp-tools.ts`, answered with the caller's key through `api`, and the resources of
 * `mcp-resources.ts`. The tools' input schemas are the API's own tables as JSON Schema, so they
 * are set on the SDK's protocol server directly rather than through zod.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { echo } from "../http/http-error.ts";
import type { DatasetDefinition } from "../datasets/registry.ts";
import { VERSION } from "../version.ts";
import type { ApiCaller } from "./api-caller.ts";
import { mcpResources } from "./mcp-resources.ts";
import { mcpTools } from "./mcp-tools.ts";

const INSTRUCTIONS =
  "South Africa's power-grid data from the Eskom Data Portal (hourly and longer), as Grid Data Service serves it. Call list_datasets first. Times: every stamp carries its offset (+00:00 UTC, +02:00 SAST); a bare date means 00:00 in tz, UTC unless tz=Africa/Johannesburg, so 'yesterday in South Africa' is a SAST day. Ask for the interval you need (1d, 1mo) rather than many hours. Each tool call is one API request against your key's limit per minute.";

/** A server whose tools ask the API through `api`. */
export function createMcpServer(datasets: readonly DatasetDefinition[], api: ApiCaller): McpServer {
  const mcp = new McpServer(
    { name: "grid-data-service", version: VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const tools = mcpTools(datasets);
  const resources = mcpResources(datasets);
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (tool === undefined) {
      return {
        content: [
          {
            type: "text",
            text: `No tool '${echo(request.params.name)}': ${tools.map((t) => t.name).join(", ")}.`,
          },
        ],
        isError: true,
      };
    }
    return tool.run(request.params.arguments ?? {}, api);
  });
  mcp.server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: resources.map(({ uri, name, description, mimeType }) => ({
      uri,
      name,
      description,
      mimeType,
    })),
  }));
  mcp.server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const resource = resources.find((r) => r.uri === request.params.uri);
    if (resource === undefined) throw new RangeError(`No resource ${request.params.uri}`);
    return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: resource.text() }] };
  });
  return mcp;
}
