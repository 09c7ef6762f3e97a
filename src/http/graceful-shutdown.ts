/**
 * Stopping without dropping a request, as Go's `http.Server.Shutdown` does: on the first SIGTERM or
 * SIGINT the server stops accepting; a keep-alive connection idle between requests closes at once;
 * a connection that has not sent its first request yet gets a few seconds (Go: 5) to send it, and
 * it is served; requests in flight finish (their connections then close), all within the grace
 * period; then pending writes are flushed and the process exits 0. The end of the grace period
 * closes what is left.
 *
 * A copy of the signal that comes within a second of the first is the same stop, relayed: `make`
 * passes a SIGTERM on to its child, which also got it from the process group, and a supervisor may
 * signal a group twice. A signal a second or more after the first is a person insisting: it exits
 * at once.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";

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
  /** How long a connection with no request yet may take to send one (FIRST_REQUEST_WAIT_MS). */
  readonly firstRequestWaitMs?: number;
}

/** A signal this soon after the first is the same stop, relayed (see above). */
export const REPEAT_WITHIN_MS = 1_000;

/** How long a connection that has not sent its first request may take to send it (Go's 5 s). */
export const FIRST_REQUEST_WAIT_MS = 5_000;

/**
 * Watches `server`'s connections from now on, and returns the function that begins a graceful
 * shutdown; calling it again a second or more later exits at once.
 */
export function createShutdown(server: Server, options: ShutdownOptions): (signal: string) => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const now = options.now ?? Date.now;
  const { sockets, stop, arrivals } = connectionCloser(
    server,
    Math.min(options.firstRequestWaitMs ?? FIRST_REQUEST_WAIT_MS, options.graceMs),
  );
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
    stop();
    closeListener(server, arrivals, () => {
      clearTimeout(deadline);
      void options.flush().then(
        () => {
          options.log("stopped: every request finished and the state is written");
          exit(0);
        },
        (error: unknown) => {
          options.log(
            `stopped: every request finished, but the state could not all be written: ${(error as Error).message}`,
          );
          exit(1);
        },
      );
    });
  };
}

/** A stop keeps accepting until no connection has come for this long (see `closeListener`)... */
const ACCEPT_QUIET_MS = 50;
/** ...and for at most this long after the signal. */
const ACCEPT_AT_MOST_MS = 500;

/**
 * Stops accepting, then calls `done` once every connection has ended. Connections the kernel has
 * already set up for us wait in its queue until the event loop takes them, which it may not have
 * done for a while if it was busy answering: closing the listener would reset them, their
 * requests sent and all. So the listener stays open until no connection has come for
 * `ACCEPT_QUIET_MS` (at most `ACCEPT_AT_MOST_MS`); those it takes are served as new connections.
 * Then net.Server#close stops accepting and leaves the connections to us: http.Server#close would
 * also close every connection not yet in a request (Node 19+), a new one whose request is still
 * unread among them.
 */
function closeListener(server: Server, arrivals: () => number, done: () => void): void {
  const until = Date.now() + ACCEPT_AT_MOST_MS;
  let seen = arrivals();
  let quietSince = Date.now();
  const check = () => {
    const t = Date.now();
    if (arrivals() !== seen) [seen, quietSince] = [arrivals(), t];
    if (t - quietSince < ACCEPT_QUIET_MS && t < until) setTimeout(check, 10);
    else NetServer.prototype.close.call(server, done);
  };
  setTimeout(check, 10);
}

/**
 * Every open connection (node's own idle sweep misses those that never sent a request), and how
 * each is closed at a stop. A connection closes now when it is idle between requests, else right
 * after its responses. A response not yet begun says so with Connection: close (a pipelining
 * client then sends what follows it again on a new connection, as HTTP/1.1 says); after one
 * begun, a pipelined one may follow. A connection that has sent no request yet may still be
 * sending it (or its bytes wait to be read while the event loop was busy): it gets its first
 * request served, if it comes within `firstRequestWaitMs`.
 */
function connectionCloser(server: Server, firstRequestWaitMs: number) {
  const sockets = new Set<Socket>();
  let stopping = false;
  let arrived = 0;
  server.on("connection", (socket: Socket) => {
    arrived++;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    // Accepted during the stop (it was queued): a new connection, given its first request.
    if (stopping) closeWhenIdle(socket);
  });
  const { serving, hadRequest } = trackResponses(server);
  const closeWhenIdle = (socket: Socket): void => {
    const res = serving(socket);
    if (res !== undefined) {
      if (!res.headersSent) res.setHeader("Connection", "close");
      res.once("close", () => closeWhenIdle(socket)); // a pipelined request may be next
      return;
    }
    if (hadRequest(socket)) {
      socket.destroySoon();
      return;
    }
    // Its request, when it comes, is answered with Connection: close, which ends it.
    const wait = setTimeout(() => hadRequest(socket) || socket.destroy(), firstRequestWaitMs);
    wait.unref();
    socket.once("close", () => clearTimeout(wait));
  };
  const stop = () => {
    stopping = true;
    for (const socket of sockets) closeWhenIdle(socket);
  };
  return { sockets, stop, arrivals: () => arrived };
}

/**
 * The response each connection is serving, if any, and whether it has sent a request at all.
 * node:http answers a connection's requests in order (a pipelined one waits behind the one in
 * service), so the first of its responses not yet finished is the one being served, and the
 * connection is idle when none is left. Finished ones are dropped as the next request comes: a
 * keep-alive connection holds at most the one it serves.
 */
function trackResponses(server: Server) {
  const open = new WeakMap<Socket, ServerResponse[]>();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const queue = open.get(req.socket);
    if (queue === undefined) open.set(req.socket, [res]);
    else {
      while (queue.length > 0 && queue[0]!.writableFinished) queue.shift();
      queue.push(res);
    }
  });
  return {
    serving: (socket: Socket) => open.get(socket)?.find((res) => !res.writableFinished),
    hadRequest: (socket: Socket) => open.has(socket),
  };
}
