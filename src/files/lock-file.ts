/**
 * An exclusive lock between processes: a file that names its owner's pid, put in place with
 * link(2), which fails atomically when the lock exists. A lock whose owner has died (a killed
 * ingest) is taken over, so a crash never blocks the store for good.
 *
 * `withLock` waits by sleeping the thread, for CLIs and ingest; `withLockAsync` waits on timers,
 * for the server, so a lock the CLI holds never stalls requests.
 */
import { linkSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { processAlive } from "./process-alive.ts";

/** Raised when the lock is still held by a live process after the wait. */
export class LockBusyError extends Error {
  constructor(path: string, pid: number) {
    super(`Cannot take the lock "${path}": process ${pid} holds it`);
    this.name = "LockBusyError";
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function owner(path: string): number | undefined {
  try {
    return Number(readFileSync(path, "utf8"));
  } catch {
    return undefined; // released meanwhile
  }
}

/** Whether a live process holds the lock at `path` now. */
export function lockHeld(path: string): boolean {
  const pid = owner(path);
  return pid !== undefined && processAlive(pid);
}

/**
 * One attempt at the lock: true when taken; false when a live process holds it (its pid in
 * `holder`); a dead owner's lock is removed and the attempt repeated at once.
 */
function tryTake(path: string, mine: string, holder: { pid: number }): boolean {
  for (;;) {
    try {
      linkSync(mine, path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const pid = owner(path);
    if (pid === undefined) continue;
    // Re-read right before removing, so that a lock just retaken by a live process survives.
    if (!processAlive(pid) && owner(path) === pid) {
      rmSync(path, { force: true });
      continue;
    }
    holder.pid = pid;
    return false;
  }
}

// Claim files of processes that died while waiting for the lock (a killed ingest or CLI).
function removeDeadClaims(path: string): void {
  const prefix = basename(path) + ".";
  for (const name of readdirSync(dirname(path))) {
    const m = name.startsWith(prefix) ? /^(\d+)-[0-9a-f]{8}$/.exec(name.slice(prefix.length)) : null;
    if (m !== null && !processAlive(Number(m[1]))) rmSync(join(dirname(path), name), { force: true });
  }
}

function claim(path: string): string {
  const mine = `${path}.${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    writeFileSync(mine, String(process.pid), { mode: 0o600 });
  } catch (error) {
    // A full disk creates the file and then fails to fill it: nothing of it may stay behind.
    rmSync(mine, { force: true });
    throw error;
  }
  return mine;
}

/**
 * The attempts at one lock: `next()` is true once the lock is taken, false while a live process
 * holds it, and throws LockBusyError after `waitMs`; `done()` cleans up the claim either way.
 */
function attempts(path: string, waitMs = 10_000) {
  const deadline = Date.now() + waitMs;
  const mine = claim(path);
  const holder = { pid: 0 };
  return {
    next(): boolean {
      if (tryTake(path, mine, holder)) {
        removeDeadClaims(path);
        return true;
      }
      if (Date.now() >= deadline) throw new LockBusyError(path, holder.pid);
      return false;
    },
    done: () => rmSync(mine, { force: true }),
  };
}

const pause = () => 10 + Math.random() * 20;

// Runs `fn` with the lock taken, and releases it after, even on throw.
function holding<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } finally {
    rmSync(path, { force: true });
  }
}

/** Runs `fn` while holding the lock at `path`, waiting up to `waitMs` for another holder. */
export function withLock<T>(path: string, fn: () => T, options: { waitMs?: number } = {}): T {
  const lock = attempts(path, options.waitMs);
  try {
    while (!lock.next()) sleep(pause());
  } finally {
    lock.done();
  }
  return holding(path, fn);
}

/**
 * `withLock` without blocking the event loop while it waits. `fn` may return a promise: the lock
 * is held until it settles (an asynchronous write under the lock). While a process holds a lock
 * across an await, it must not take the same lock with the synchronous `withLock`: that wait
 * blocks the event loop the holder needs to finish.
 */
export async function withLockAsync<T>(
  path: string,
  fn: () => T | Promise<T>,
  options: { waitMs?: number } = {},
): Promise<T> {
  const lock = attempts(path, options.waitMs);
  try {
    while (!lock.next()) await delay(pause());
  } finally {
    lock.done();
  }
  try {
    return await fn();
  } finally {
    rmSync(path, { force: true });
  }
}
