/**
 * Stopping without dropping a request: on the first SIGTERM or SIGINT the server stops accepting,
 * connections with no request in progress close at once (idle keep-alive ones, and ones that never
 * sent a request), and requests in flight finish (their connections then close too), within a
 * grace period; then pending writes are flushed and the process exits 0. The end of the grace
 * period closes what is left.
 *
 * A copy of the signal that comes within a second of the first is the same stop, relayed: `make`
 * passes a SIGTERM on to its child, which also got it from the process group, and a supervisor may
 * signal a group twice. A signal a second or more after the first is a person insisting: it exits
 * at once.
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
  /** The clock that tells a relayed copy of the signal from a second one; injected for tests. */
  readonly now?: () => number;
}

/** A signal this soon after the first is the same stop, relayed (see above). */
export const REPEAT_WITHIN_MS = 1_000;

/**
 * Watches `server`'s connections from now on, and returns the function that begins a graceful
 * shutdown; calling it again a second or more later exits at once.
 */
export function createShutdown(server: Server, options: ShutdownOptions): (signal: string) => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const now = options.now ?? Date.now;
  // Every open connection: node's own idle sweep misses connections that never sent a request.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const inFlight = trackResponses(server);
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

  let startedAt: number | undefined;
  return (signal) => {
    if (startedAt !== undefined) {
      if (now() - startedAt < REPEAT_WITHIN_MS) {
        options.log(`${signal} again within a second (relayed): still finishing requests in flight`);
        return;
      }
      options.log(`${signal} again: exiting now`);
      exit(1);
      return;
    }
    startedAt = now();
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
        () => {
          options.log("stopped: every request finished and the state is written");
          exit(0);
        },
        () => exit(1),
      );
    });
    for (const socket of sockets) closeWhenIdle(socket);
  };
}

/**
 * The response each connection is serving, if any. node:http answers a connection's requests in
 * order (a pipelined one waits behind the one in service), so the first of its responses not yet
 * finished is the one being served, and the connection is idle when none is left. Finished ones
 * are dropped as the next request comes: a keep-alive connection holds at most the one it serves.
 */
function trackResponses(server: Server): (socket: Socket) => ServerResponse | undefined {
  const open = new WeakMap<Socket, ServerResponse[]>();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const queue = open.get(req.socket);
    if (queue === undefined) open.set(req.socket, [res]);
    else {
      while (queue.length > 0 && queue[0]!.writableFinished) queue.shift();
      queue.push(res);
    }
  });
  return (socket) => open.get(socket)?.find((res) => !res.writableFinished);
}
