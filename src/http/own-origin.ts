/**
 * This server's own address as a connection reached it: where the explorer and the MCP endpoint
 * send the API requests they make for a caller, so that those go through the same pipeline (key
 * or session, limits, counting) as any other.
 */
import type { IncomingMessage } from "node:http";

/** `http://<local address>:<local port>` of the connection `req` came on. */
export function ownOrigin(req: IncomingMessage): string {
  const address = (req.socket.localAddress ?? "127.0.0.1").replace(/^::ffff:/, "");
  return `http://${address.includes(":") ? `[${address}]` : address}:${req.socket.localPort}`;
}

/** The service's address as people reach it: the request's Host (a safe one), https behind TLS. */
export function publicBase(req: IncomingMessage, secure: boolean): string {
  const host = req.headers.host;
  const safe = host !== undefined && /^[A-Za-z0-9.\-:[\]]{1,255}$/.test(host) ? host : "127.0.0.1:8000";
  return `${secure ? "https" : "http"}://${safe}`;
}
