/**
 * `npm run mcp`: the Model Context Protocol over stdio, for clients that start a local process
 * (docs/mcp.md). Its tools ask the service at `GDS_URL` with the key in `GDS_KEY`, so the key's
 * limits and revocation apply as on `/mcp`. Nothing is written to stdout but the protocol.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { DATASETS } from "../src/datasets/registry.ts";
import { remoteApi } from "../src/mcp/api-caller.ts";
import { createMcpServer } from "../src/mcp/mcp-server.ts";

const url = process.env.GDS_URL ?? "http://127.0.0.1:8000";
const key = process.env.GDS_KEY;
if (key === undefined || key === "") {
  process.stderr.write(
    "Set GDS_KEY to your API key (and GDS_URL to the service, http://127.0.0.1:8000 by default)\n",
  );
  process.exit(2);
}
const server = createMcpServer(DATASETS, remoteApi(url, key));
await server.connect(new StdioServerTransport());
process.stderr.write(`Grid Data Service MCP server on stdio, asking ${url}\n`);
