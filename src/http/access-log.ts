/**
 * The access log's writer: lines are gathered and written once per turn of the event loop (one
 * write, not one per request). Each line is encoded straight into one reused buffer, so no string
 * of the whole batch is built and flattened first; `write` gets a copy, so a stream that writes
 * later (a pipe, a socket) is safe too.
 */
import { type AccessLogEntry, accessLogLine } from "./app.ts";

/** The log of one process: `log` takes an entry, `flush` writes what is gathered now. */
export interface AccessLog {
  readonly log: (entry: AccessLogEntry) => void;
  readonly flush: () => void;
}

/** A log writing its batches to `write` (stdout in the server); `bufferBytes` bounds one batch. */
export function createAccessLog(write: (chunk: Buffer) => void, bufferBytes = 64 * 1024): AccessLog {
  const buffer = Buffer.allocUnsafe(bufferBytes);
  let used = 0;
  const flush = (): void => {
    if (used === 0) return;
    const lines = Buffer.from(buffer.subarray(0, used));
    used = 0;
    write(lines);
  };
  const log = (entry: AccessLogEntry): void => {
    const line = accessLogLine(entry);
    // At most 3 bytes of UTF-8 per UTF-16 unit, and the newline.
    const room = line.length * 3 + 1;
    if (used + room > bufferBytes) flush();
    if (room > bufferBytes) {
      write(Buffer.from(line + "\n"));
      return;
    }
    if (used === 0) setImmediate(flush);
    used += buffer.write(line, used);
    buffer[used++] = 0x0a;
  };
  return { log, flush };
}
