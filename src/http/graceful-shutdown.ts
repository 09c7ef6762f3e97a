/**
 * Stopping without dropping a request: on the first SIGTERM or SIGINT the server stops accepting,
 * connections with no request in progress close at once (idle keep-alive ones, and ones that never
 * sent a request), and requests in flight finish (their connections then close too), within a
 * grace period; then pending writes are flushed and the process exits 0. A second signal exits at
 * once; the end of the grace period closes what is left.
 */
import type { Server } from "node:http";
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
  // Requests in progress per connection: Node's own idle sweep misses connections that never sent one.
  const active = new Map<Socket, number>();
  let stopping = false;
  const closeIfIdle = (socket: Socket) => {
    if (stopping && (active.get(socket) ?? 0) === 0) socket.destroySoon();
  };
  server.on("connection", (socket: Socket) => {
    active.set(socket, 0);
    socket.once("close", () => active.delete(socket));
  });
  server.on("request", (req, res) => {
    const socket = req.socket;
    active.set(socket, (active.get(socket) ?? 0) + 1);
    // Once stopping, a response ends its connection rather than wait for another request.
    if (stopping) res.setHeader("Connection", "close");
    res.once("close", () => {
      active.set(socket, (active.get(socket) ?? 1) - 1);
      closeIfIdle(socket);
    });
  });

  let started = false;
  return (signal) => {
    if (started) {
      options.log(`${signal} again: exiting now`);
      exit(1);
      return;
    }
    started = true;
    stopping = true;
    options.log(
      `${signal}: no new connections; finishing requests in flight (at most ${options.graceMs / 1000} s)`,
    );
    const deadline = setTimeout(() => {
      options.log("the grace period ended with requests in flight: closing them");
      server.closeAllConnections();
      for (const socket of active.keys()) socket.destroy();
    }, options.graceMs);
    deadline.unref();
    server.close(() => {
      clearTimeout(deadline);
      void options.flush().then(
        () => exit(0),
        () => exit(1),
      );
    });
    for (const socket of active.keys()) closeIfIdle(socket);
  };
}
