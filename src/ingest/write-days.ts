/** An ingest's writes: the changed day files, the month packs and the manifest, safe on a full disk. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fsyncDirectory, stageFiles, type StagedFiles } from "../files/atomic-write.ts";
import { failpoint } from "../files/failpoint.ts";
import { dayFileName, serializeDay } from "../store/day-file.ts";
import { dayEntry, loadManifest, MANIFEST_FILE, READINGS_DIR, serializeManifest } from "../store/manifest.ts";
import { monthOf, PACKS } from "../store/month-pack.ts";
import { writeMonthPack } from "../store/write-month-pack.ts";
import type { IngestProgress } from "./ingest-summary.ts";
import type { LoadedDays } from "./loaded-days.ts";

// The changed day files, then the month packs and the manifest. Everything that needs space is
// written before any day file is replaced: the days to temp files, the packs (derived: a reader
// takes a pack's slot only when its hash is the manifest's, so a pack ahead of the manifest is
// passed over), the manifest to a temp file. Then renames alone, which need none, put the days and
// then the manifest in place: a full disk at any point changes no day. Returns the days written.
export function writeDays(
  dir: string,
  keys: readonly string[],
  loaded: LoadedDays,
  sample: boolean,
  onProgress?: IngestProgress,
): number {
  const readingsDir = join(dir, READINGS_DIR);
  const manifestPath = join(dir, MANIFEST_FILE);
  const manifestBefore = existsSync(manifestPath) ? readFileSync(manifestPath, "utf8") : null;
  const manifest = loadManifest(dir);
  const writes: { path: string; data: string }[] = [];
  keys.forEach((key, i) => {
    if (i % 64 === 0) onProgress?.("write", i, keys.length);
    const { day, before } = loaded.days.get(key)!;
    const text = serializeDay(day);
    if (text === "") return;
    if (text !== before) writes.push({ path: join(readingsDir, dayFileName(key)), data: text });
    manifest.set(key, dayEntry(day, text, sample));
  });
  const days = stageFiles(writes);
  let manifestFile: StagedFiles | undefined;
  try {
    if (PACKS) {
      for (const month of new Set(keys.map(monthOf))) {
        writeMonthPack(readingsDir, month, manifest, (key) =>
          loaded.corrupt.has(key) ? undefined : loaded.days.get(key)?.day,
        );
      }
    }
    failpoint("ingest:packs-written");
    const manifestText = serializeManifest(manifest);
    if (manifestText !== manifestBefore)
      manifestFile = stageFiles([{ path: manifestPath, data: manifestText }]);
    days.commit();
    failpoint("ingest:days-written");
    onProgress?.("write", keys.length, keys.length);
    if (writes.length > 0) fsyncDirectory(readingsDir);
    if (manifestFile !== undefined) {
      manifestFile.commit();
      fsyncDirectory(dir);
    }
  } catch (error) {
    days.abort();
    manifestFile?.abort();
    throw error;
  }
  return writes.length;
}
