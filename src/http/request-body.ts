/** Reads a request's body, bounded: what a form or an MCP message may be, and not a byte more. */
import type { IncomingMessage } from "node:http";

/**
 * The body's bytes, or undefined past `maxBytes` (a declared Content-Length past it is refused
 * before anything is read). Past the bound the rest is read and dropped, not kept, and the
 * request is not destroyed, so that the answer (a 413) still reaches the client; the server's
 * request timeout bounds how long that lasts.
 */
export function readBounded(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      req.off("data", onData).off("end", onEnd); // an error later finds `reject` spent: a no-op
      req.resume();
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on("data", onData).on("end", onEnd).on("error", reject);
  });
}
