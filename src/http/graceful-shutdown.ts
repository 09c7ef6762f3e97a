/**
 * Stopping without dropping a request: on the first SIGTERM or SIGINT the server stops accepting,
 * connections with no request in progress close at once (idle keep-alive ones, and ones that never
 * sent a request), and requests in flight finish (their connections then close too), within a
 * grace period; then pending writes are flushed and the process exits 0. A second signal exits at
 * once; the end of the grace period closes what is left.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface ShutdownOptions {
  /** How long requests in flight may take to finish. */
  readonly graceMs: number;
  /** Writes what must not be lost (last-used times, request counts, sessions, logs). */
  readonly flush: () => Promise<unknown>;
  /** Where to say what is happening. */
  readonly log: (line: string) => void;
  /** Ends the process; injected for tests. */
  readonly exit?: (code: number) => void;
}

/**
 * Watches `server`'s connections from now on, and returns the function that begins a graceful
 * shutdown; calling it again (a second signal) exits at once.
 */
export function createShutdown(server: Server, options: ShutdownOptions): (signal: string) => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  // Every open connection: node's own idle sweep misses connections that never sent a request.
  // Nothing is done per request, on the request path (README: "Performance").
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // A connection closes now when it is idle, else right after its responses. A response not yet
  // begun says so with Connection: close (a pipelining client then sends what follows it again on
  // a new connection, as HTTP/1.1 says); after one already begun, a pipelined one may follow.
  const closeWhenIdle = (socket: Socket) => {
    const res = inFlight(socket);
    if (res === undefined) {
      socket.destroySoon();
      return;
    }
    if (!res.headersSent) res.setHeader("Connection", "close");
    res.once("close", () => closeWhenIdle(socket)); // a pipelined request may be next
  };

  let started = false;
  return (signal) => {
    if (started) {
      options.log(`${signal} again: exiting now`);
      exit(1);
      return;
    }
    started = true;
    // A request that still arrives (pipelined behind one in flight) ends its connection too; this
    // listener runs before the app's, which may answer at once.
    server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
      if (!res.headersSent) res.setHeader("Connection", "close");
    });
    options.log(
      `${signal}: no new connections; finishing requests in flight (at most ${options.graceMs / 1000} s)`,
    );
    const deadline = setTimeout(() => {
      options.log("the grace period ended with requests in flight: closing them");
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
    }, options.graceMs);
    deadline.unref();
    server.close(() => {
      clearTimeout(deadline);
      void options.flush().then(
        () => exit(0),
        () => exit(1),
      );
    });
    for (const socket of sockets) closeWhenIdle(socket);
  };
}

/**
 * The response a connection is serving, if it has not finished: node:http keeps it in the
 * socket's `_httpMessage`, which node's own public `server.closeIdleConnections()` reads the same
 * way (there is no public accessor).
 */
function inFlight(socket: Socket): ServerResponse | undefined {
  const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  return res === null || res === undefined || res.writableFinished ? undefined : res;
}
