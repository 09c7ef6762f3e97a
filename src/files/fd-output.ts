/**
 * Standard output and error for a server that runs for years: writes that never throw and never
 * end the process. A log redirected to a file on a full disk, or read through a pipe whose reader
 * is gone (EPIPE), loses what cannot be written; the loss is counted and reported, and the next
 * write tries again, so logging resumes once there is room. `process.stdout` would instead emit an
 * 'error' that ends the process, and stay destroyed after it.
 *
 * Writes are synchronous, as `process.stdout`'s are on Linux for files and pipes: one write(2) per
 * call while it takes the whole chunk, so a chunk of at most PIPE_BUF bytes reaches a pipe whole
 * (the cluster's workers share the primary's stdout).
 */
import { writeSync } from "node:fs";

/** What an output lost: the writes that did not get through, their lines, and the last reason. */
export interface OutputLoss {
  readonly writes: number;
  readonly bytes: number;
  /** Lines lost whole or in part (a line cut by a partial write counts). */
  readonly lines: number;
  readonly error: NodeJS.ErrnoException;
}

const NEWLINE = 0x0a;
const NEWLINE_BYTES = Buffer.from("\n");

// The lines in what was not written: its newlines, and a last line without one.
function linesIn(rest: Uint8Array): number {
  let lines = 0;
  for (let i = 0; i < rest.length; i++) if (rest[i] === NEWLINE) lines++;
  return rest.length > 0 && rest[rest.length - 1] !== NEWLINE ? lines + 1 : lines;
}

export interface FdOutput {
  /** Writes `data` whole; false when some or all of it was lost (counted, and reported). */
  write(data: string | Uint8Array): boolean;
  /** What was lost so far, or undefined when nothing was. */
  readonly lost: OutputLoss | undefined;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
// A descriptor left non-blocking by whoever opened it (EAGAIN): a full pipe gets this long to drain.
const AGAIN_TRIES = 100;
const AGAIN_WAIT_MS = 1;

/**
 * An output on descriptor `fd` (1, 2). `onLoss` hears of each write that lost bytes, with the
 * totals so far; it must not write to this output.
 */
export function fdOutput(fd: number, onLoss?: (loss: OutputLoss) => void): FdOutput {
  let lost: OutputLoss | undefined = undefined;
  // A write cut mid-line left the start of a line: the next write begins on a line of its own.
  let cut = false;
  return {
    get lost() {
      return lost;
    },
    write(data) {
      let bytes = typeof data === "string" ? Buffer.from(data) : data;
      const prefix = cut ? 1 : 0;
      if (cut) bytes = Buffer.concat([NEWLINE_BYTES, bytes]);
      let offset = 0;
      let again = 0;
      while (offset < bytes.length) {
        try {
          offset += writeSync(fd, bytes, offset, bytes.length - offset);
        } catch (error) {
          const e = error as NodeJS.ErrnoException;
          if (e.code === "EAGAIN" && again++ < AGAIN_TRIES) {
            Atomics.wait(sleeper, 0, 0, AGAIN_WAIT_MS);
            continue;
          }
          lost = {
            writes: (lost?.writes ?? 0) + 1,
            bytes: (lost?.bytes ?? 0) + bytes.length - Math.max(offset, prefix),
            lines: (lost?.lines ?? 0) + linesIn(bytes.subarray(Math.max(offset, prefix))),
            error: e,
          };
          if (offset > 0) cut = bytes[offset - 1] !== NEWLINE;
          onLoss?.(lost);
          return false;
        }
      }
      cut = false;
      return true;
    },
  };
}
