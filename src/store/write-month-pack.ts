/**
 * Rebuilds a month's pack after an ingest touched some of its days: days in memory are packed as
 * they are, untouched days are copied from the old pack when their slot is current, and parsed
 * from their day file otherwise, when it still has the manifest's hash. The pack is replaced only when its bytes change, and without
 * fsync: it is derived, and readers check every slot against the manifest.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { type Day, dayFileName, parseDay } from "./day-file.ts";
import { contentHash, type Manifest } from "./manifest.ts";
import { encodePack, isPack, monthOf, type PackedDay, packName, unpackDay } from "./month-pack.ts";

/** Writes the pack of `month` from the manifest's days; `inMemory` gives the days just merged. */
export function writeMonthPack(
  readingsDir: string,
  month: string,
  manifest: Manifest,
  inMemory: (key: string) => Day | undefined,
): void {
  const path = join(readingsDir, packName(month));
  const old = existsSync(path) ? readFileSync(path) : undefined;
  const usable = old !== undefined && isPack(old) ? old : undefined;
  const packed: PackedDay[] = [];
  for (const [key, entry] of manifest) {
    if (monthOf(key) !== month) continue;
    let day = inMemory(key) ?? (usable && unpackDay(usable, key, entry.hash));
    if (day === undefined) {
      try {
        const text = readFileSync(join(readingsDir, dayFileName(key)), "utf8");
        // A slot vouches for the manifest's hash: a file that no longer has it stays out.
        if (contentHash(text) !== entry.hash) continue;
        day = parseDay(text, key);
      } catch {
        continue; // an unreadable day file stays out of the pack; readers report it from the file
      }
    }
    packed.push({ day, hash: entry.hash });
  }
  const bytes = encodePack(packed);
  if (old === undefined || !old.equals(bytes)) writeFileAtomic(path, bytes, { durable: false });
}
