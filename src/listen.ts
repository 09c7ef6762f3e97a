/**
 * Listening where the settings say. An address that cannot be had (another process listens there,
 * the port needs privileges, the host is not this machine's) is told in one line naming the
 * setting to change, and the process exits with LISTEN_FAILED: a cluster primary then stops,
 * rather than start worker after worker to fail the same way while it looks alive.
 */
import type { Server } from "node:net";

/** The exit code of a process that could not listen: sysexits' EX_CONFIG, a setting to change. */
export const LISTEN_FAILED = 78;

/** Where to listen, and the names of the settings that said so (for the message). */
export interface ListenAt {
  readonly host: string;
  readonly port: number;
  readonly hostSetting: string;
  readonly portSetting: string;
}

/** Why `error` kept a server from listening at `at`, in words an operator can act on. */
export function listenFailure(error: NodeJS.ErrnoException, at: ListenAt): string {
  const where = `Cannot listen on ${at.host}:${at.port} (${at.hostSetting}, ${at.portSetting})`;
  if (error.code === "EADDRINUSE")
    return `${where}: another process listens there. Stop it, or set ${at.portSetting} to a free port.`;
  if (error.code === "EACCES" && at.port < 1024)
    return `${where}: a port below 1024 needs privileges this process does not have. Set ${at.portSetting} to 1024 or above (a reverse proxy can take 80 and 443).`;
  if (error.code === "EADDRNOTAVAIL")
    return `${where}: ${at.host} is not an address of this machine. Set ${at.hostSetting} to one of its addresses.`;
  return `${where}: ${error.message}`;
}

/**
 * Listens at `at`: `listening` is called with the port (the one the system chose for port 0) once
 * it does, or `failed` with the reason when it cannot. Errors after that are the server's own.
 */
export function listenAt(
  server: Server,
  at: ListenAt,
  listening: (port: number) => void,
  failed: (why: string) => void,
): void {
  const onError = (error: NodeJS.ErrnoException) => failed(listenFailure(error, at));
  server.once("error", onError);
  server.listen(at.port, at.host, () => {
    server.off("error", onError);
    const address = server.address();
    listening(typeof address === "object" && address !== null ? address.port : at.port);
  });
}
