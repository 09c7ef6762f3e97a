/**
 * Whether a process still runs, from its pid: how a lock or a temp file that names its writer tells
 * a live writer from one that was killed. Pids are this host's: the processes that share a data
 * directory share one pid namespace (docs/operations.md).
 */

/** Whether the process `pid` runs (one of another user counts: it exists). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
