/** A cheap fingerprint of a file, for readers that reread it only when it changed. */
import { statSync } from "node:fs";

/**
 * Inode, size and modification time, or "none" when the file does not exist. An atomic replace
 * gives a new inode, so a reader never mistakes a new file for the one it has.
 */
export function fileStamp(path: string): string {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : "none";
}
