/**
 * The `node:http` server with bounds a hostile or broken client cannot stretch: headers must
 * arrive within `headersTimeoutMs` (a slowloris connection is cut), a whole request within
 * `requestTimeoutMs`, an idle keep-alive connection closes after `keepAliveTimeoutMs`, headers
 * are capped in size, and one address holds at most `maxConnectionsPerAddress` connections.
 * Node checks the timeouts every `checkIntervalMs`, so a cut comes within that much of its bound.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** The bounds; the README's settings table gives their defaults. */
export interface ServerLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxHeaderBytes: number;
  readonly maxConnectionsPerAddress: number;
  readonly checkIntervalMs?: number;
}

/** Defaults: 10 s for headers, 30 s for a request, 5 s idle keep-alive, 16 KB of headers, 256 connections per address (a proxy in front is one address). */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  maxConnectionsPerAddress: 256,
};

/** A server for `listener` with `limits` applied. */
export function createHardenedServer(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  limits: ServerLimits = DEFAULT_SERVER_LIMITS,
): Server {
  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs ?? 1000,
    },
    listener,
  );
  const perAddress = new Map<string, number>();
  server.on("connection", (socket) => {
    const address = socket.remoteAddress ?? "unknown";
    const count = (perAddress.get(address) ?? 0) + 1;
    if (count > limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    perAddress.set(address, count);
    socket.once("close", () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
  return server;
}
