/** The service's public address, as the MCP tools and the dashboard name it to people. */
import type { IncomingMessage } from "node:http";

/** The service's address as people reach it: the request's Host (a safe one), https behind TLS. */
export function publicBase(req: IncomingMessage, secure: boolean): string {
  const host = req.headers.host;
  const safe = host !== undefined && /^[A-Za-z0-9.\-:[\]]{1,255}$/.test(host) ? host : "127.0.0.1:8000";
  return `${secure ? "https" : "http"}://${safe}`;
}
