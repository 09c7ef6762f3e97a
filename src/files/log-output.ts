/**
 * Standard output and error for a server that runs for years: writes that never throw and never
 * end the process. A log that cannot be written (redirected to a file on a full disk, or piped to
 * a reader that went away) loses lines; the loss is counted and reported. `process.stdout` alone
 * would emit an 'error' that ends the process.
 *
 * - A regular file is written directly (`fileOutput`), as Node's own stream for a file does:
 *   synchronously, looping on short writes (`writeUntilDone`). A write the disk refuses is lost, and the next one
 *   tries again, so logging resumes once there is room; after a write cut mid-line, the next
 *   starts a line of its own.
 * - A pipe, a socket or a terminal goes through Node's stream for it (`streamOutput`), which holds
 *   what a slow reader has not taken yet rather than block or drop it. Once the stream fails
 *   (EPIPE: the reader is gone, for good), every later line is lost and counted.
 */
import { fstatSync } from "node:fs";
import type { Writable } from "node:stream";
import { writeUntilDone } from "./atomic-write.ts";

/** What an output lost: the writes that did not get through, their lines, and the last reason. */
export interface OutputLoss {
  readonly writes: number;
  readonly bytes: number;
  /** Lines lost whole or in part (a line cut by a partial write counts). */
  readonly lines: number;
  readonly error: NodeJS.ErrnoException;
}

export interface LogOutput {
  /** Writes `data`; false when some or all of it was lost (counted, and reported). */
  write(data: string | Uint8Array): boolean;
  /** What was lost so far, or undefined when nothing was. */
  readonly lost: OutputLoss | undefined;
  /** Resolves once what was written has left the process (before it exits). */
  drained(): Promise<void>;
}

const NEWLINE = 0x0a;
const NEWLINE_BYTES = Buffer.from("\n");

// The lines in what was not written: its newlines, and a last line without one.
function linesIn(rest: Uint8Array): number {
  let lines = 0;
  for (let i = 0; i < rest.length; i++) if (rest[i] === NEWLINE) lines++;
  return rest.length > 0 && rest[rest.length - 1] !== NEWLINE ? lines + 1 : lines;
}

// Counts a loss and tells of it.
function losses(onLoss: ((loss: OutputLoss) => void) | undefined) {
  let lost: OutputLoss | undefined = undefined;
  return {
    get lost() {
      return lost;
    },
    add(rest: Uint8Array, error: NodeJS.ErrnoException): void {
      lost = {
        writes: (lost?.writes ?? 0) + 1,
        bytes: (lost?.bytes ?? 0) + rest.length,
        lines: (lost?.lines ?? 0) + linesIn(rest),
        error,
      };
      onLoss?.(lost);
    },
  };
}

const asBytes = (data: string | Uint8Array) => (typeof data === "string" ? Buffer.from(data) : data);

/**
 * The output for `stream` (`process.stdout`, `process.stderr`); `onLoss` must not write to it.
 * Anything else that writes through `stream` (a library's console output) cannot end the process
 * either: its errors are caught.
 */
export function logOutput(
  stream: NodeJS.WriteStream & { readonly fd: number },
  onLoss?: (loss: OutputLoss) => void,
): LogOutput {
  let file = false;
  try {
    file = fstatSync(stream.fd).isFile();
  } catch {
    // a closed descriptor: the stream says so at its first write
  }
  if (!file) return streamOutput(stream, onLoss);
  stream.on("error", () => {});
  return fileOutput(stream.fd, onLoss);
}

/** An output on descriptor `fd`, of a regular file. */
export function fileOutput(fd: number, onLoss?: (loss: OutputLoss) => void): LogOutput {
  const loss = losses(onLoss);
  // A write cut mid-line left the start of a line: the next write begins on a line of its own.
  let cut = false;
  return {
    get lost() {
      return loss.lost;
    },
    write(data) {
      const prefix = cut ? NEWLINE_BYTES.length : 0;
      const bytes = cut ? Buffer.concat([NEWLINE_BYTES, asBytes(data)]) : asBytes(data);
      const { written, error } = writeUntilDone(fd, bytes);
      if (error !== undefined) {
        if (written > 0) cut = bytes[written - 1] !== NEWLINE;
        loss.add(bytes.subarray(Math.max(written, prefix)), error);
        return false;
      }
      cut = false;
      return true;
    },
    drained: () => Promise.resolve(),
  };
}

/** An output through `stream` (a pipe, a socket, a terminal): its failure is caught, not thrown. */
export function streamOutput(stream: Writable, onLoss?: (loss: OutputLoss) => void): LogOutput {
  const loss = losses(onLoss);
  let failure: NodeJS.ErrnoException | undefined = undefined;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    failure ??= error;
  });
  return {
    get lost() {
      return loss.lost;
    },
    write(data) {
      if (failure === undefined && !stream.destroyed) {
        stream.write(data);
        return true;
      }
      loss.add(asBytes(data), failure ?? Object.assign(new Error("the output is closed"), { code: "EPIPE" }));
      return false;
    },
    // What a slow reader has not taken yet is held by the stream: a stop waits for it.
    drained: () =>
      failure === undefined && !stream.destroyed
        ? new Promise<void>((resolve) => stream.write("", () => resolve()))
        : Promise.resolve(),
  };
}
