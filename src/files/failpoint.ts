/**
 * Named points in the store's commit where a test can kill the process, to prove that a crash at
 * any of them loses nothing (test/ingest-kill.test.ts). With `GDS_FAILPOINT` set to a point's
 * name, the process sends itself SIGKILL there, as `kill -9` would; unset (always, outside the
 * tests), a failpoint is one comparison.
 */

const ARMED = process.env.GDS_FAILPOINT;

/** Every failpoint, in the order an ingest into a sample store passes them. */
export const FAILPOINTS = [
  "ingest:pending-marked",
  "sample:intent-written",
  "sample:manifest-removed",
  "sample:days-removed",
  "ingest:sample-removed",
  "ingest:revisions-recorded",
  "write:first-staged",
  "write:all-staged",
  "ingest:packs-written",
  "write:first-renamed",
  "ingest:days-written",
  "ingest:manifest-written",
] as const;

/** Kills this process at `name` when GDS_FAILPOINT names it. */
export function failpoint(name: (typeof FAILPOINTS)[number]): void {
  if (ARMED === name) process.kill(process.pid, "SIGKILL");
}
