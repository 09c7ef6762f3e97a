/** Crash-safe file replacement: a reader sees the old bytes or the new, never a mix. */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { failpoint } from "./failpoint.ts";
import { processAlive } from "./process-alive.ts";

const TEMP_MARK = ".tmp-";

/**
 * Writes `bytes` at the file position of `fd` until all are down or a write fails: how many were
 * written, and the failure. One write(2) may write less than asked: a disk that fills part-way
 * through takes what fits and reports it, and only the next write fails with ENOSPC.
 * `fs.writeSync` returns that short count rather than throwing, so a single call would leave a cut
 * file that looks written.
 */
export function writeUntilDone(
  fd: number,
  bytes: Uint8Array,
): { written: number; error?: NodeJS.ErrnoException } {
  let written = 0;
  while (written < bytes.length) {
    try {
      const n = writeSync(fd, bytes, written, bytes.length - written);
      if (n <= 0) throw new Error(`write(2) wrote nothing (${written} of ${bytes.length} bytes written)`);
      written += n;
    } catch (error) {
      return { written, error: error as NodeJS.ErrnoException };
    }
  }
  return { written };
}

/** Writes all of `data` at the file position of `fd`, or throws why it could not (`writeUntilDone`). */
export function writeAllSync(fd: number, data: string | Uint8Array): void {
  const { error } = writeUntilDone(fd, typeof data === "string" ? Buffer.from(data) : data);
  if (error !== undefined) throw error;
}

/**
 * Writes `data` to a temp file beside `path`, fsyncs it, then renames it over `path`.
 * `durable: false` skips the fsync, for derived files that readers verify anyway.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; durable?: boolean } = {},
): void {
  const temp = tempPathOf(path);
  const fd = openSync(temp, "wx", options.mode ?? 0o644);
  try {
    writeAllSync(fd, data);
    if (options.durable !== false) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
}

/** A temp file beside `path`, named for this process and unique within it. */
export function tempPathOf(path: string): string {
  return `${path}${TEMP_MARK}${process.pid}-${randomBytes(4).toString("hex")}`;
}

/** Files written whole to fsynced temp files beside their targets, not yet in place. */
export interface StagedFiles {
  /** Renames every temp file over its target (renames need no space). */
  commit(): void;
  /** Removes the temp files not yet renamed. */
  abort(): void;
}

/**
 * The first phase of a multi-file write: every new content to a fsynced temp file. A failure
 * while writing (a full disk) removes the temp files and throws, having changed nothing; the caller
 * commits when everything else that needs space is written too.
 */
export function stageFiles(files: readonly { path: string; data: string | Uint8Array }[]): StagedFiles {
  const staged: { temp: string; path: string }[] = [];
  let renamed = 0; // staged[0 .. renamed) are in place
  const abort = () => {
    for (const { temp } of staged.slice(renamed)) rmSync(temp, { force: true });
    renamed = staged.length;
  };
  try {
    for (const { path, data } of files) {
      const temp = tempPathOf(path);
      staged.push({ temp, path });
      const fd = openSync(temp, "wx", 0o644);
      try {
        writeAllSync(fd, data);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (staged.length === 1) failpoint("write:first-staged");
    }
  } catch (error) {
    abort();
    throw error;
  }
  failpoint("write:all-staged");
  return {
    commit() {
      for (; renamed < staged.length; renamed++) {
        const { temp, path } = staged[renamed]!;
        renameSync(temp, path);
        if (renamed === 0) failpoint("write:first-renamed");
      }
    },
    abort,
  };
}

/** Makes completed renames in a directory durable. */
export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes temp files a killed writer left in `dir` (only those of `file` when given); call only
 * while holding the lock of the writers of those files.
 */
export function removeStaleTempFiles(dir: string, file?: string): number {
  let removed = 0;
  for (const name of readdirSync(dir)) {
    if (file === undefined ? name.includes(TEMP_MARK) : name.startsWith(file + TEMP_MARK)) {
      rmSync(join(dir, name), { force: true });
      removed++;
    }
  }
  return removed;
}

// A temp file's name after its target's: the writer's pid and a random tag (tempPathOf).
const TEMP_NAME = /\.tmp-(\d+)-[0-9a-f]{8}$/;

/**
 * Removes the temp files in `dir` whose writer is no longer running (the pid in the name): what a
 * killed process left, which no one else would remove. A live writer's temp file stays, so this
 * needs no lock. Returns the names removed.
 */
export function removeDeadTempFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (m === null || processAlive(Number(m[1]))) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** Whether a file name is a writer's temp file, which readers must ignore. */
export function isTempFile(path: string): boolean {
  return basename(path).includes(TEMP_MARK) || dirname(path).includes(TEMP_MARK);
}
