/**
 * Durable appends to a log of JSON lines (the revision history, the pull's attempts). A reader
 * skips a line that does not parse: the torn end of an append that a kill or a full disk cut. An
 * append after such an end starts on a line of its own, so the torn bytes never swallow it.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync } from "node:fs";
import { writeAllSync } from "./atomic-write.ts";

const NEWLINE = 0x0a;

/** Appends `line` (ending in "\n") to the file at `path` and fsyncs it; creates the file if needed. */
export function appendLine(path: string, line: string): void {
  const fd = openSync(path, "a+", 0o644);
  try {
    const { size } = fstatSync(fd);
    let text = line;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== NEWLINE) text = "\n" + line;
    }
    writeAllSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
