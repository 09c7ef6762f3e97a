/**
 * Upgrades of the store's files (docs/operations.md: "Upgrades"). Each file kind keeps its format
 * version in the file itself; a file in an older format is whole but not what this release reads,
 * and one small function per version step rewrites it in the current one. The steps run under the
 * ingest lock: by a server in the background after it starts, one file at a time, or by
 * `npm run upgrade-store`. One-time upgrades of an old release's store (not a format) run only in
 * `upgrade-store`, never at start. `verify-store` lists the files still to migrate apart from damage.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { withLock, withLockAsync } from "../files/lock-file.ts";
import { writeMonthPack } from "./write-month-pack.ts";
import { findLegacySample } from "./legacy-sample.ts";
import { loadManifest, MANIFEST_FILE, READINGS_DIR, writeManifest } from "./manifest.ts";
import { monthOf, PACK_VERSION, packState } from "./month-pack.ts";
import { INGEST_LOCK } from "./pending-ingest.ts";
import { markSample } from "./sample-mark.ts";

/** One version step of one file kind. */
export interface Migration {
  /** What the step does, as verify-store and the log say it. */
  readonly name: string;
  /** The files (relative to the data directory) still in the format this step upgrades. */
  pending(dir: string): string[];
  /** Rewrites one of them in the next format; the caller holds the ingest lock. */
  apply(dir: string, file: string): void;
}

/** A file still to migrate, and the step that will. */
export interface Outdated {
  readonly file: string;
  readonly migration: string;
}

const PACK_FILE = /^(\d{4}-\d{2})\.pack$/;

/**
 * Month packs of format 1 (releases up to 0.1.0: no slot checksums) or of an earlier column
 * catalog: rebuilt from the day files that still match the manifest, which stay the truth.
 */
const packToCurrent: Migration = {
  name: `rewrite the month pack in format ${PACK_VERSION} from its day files`,
  pending(dir) {
    const readings = join(dir, READINGS_DIR);
    if (!existsSync(readings)) return [];
    return readdirSync(readings)
      .filter((name) => PACK_FILE.test(name))
      .filter((name) => packState(readFileSync(join(readings, name))) === "outdated")
      .sort()
      .map((name) => join(READINGS_DIR, name));
  },
  apply(dir, file) {
    const month = PACK_FILE.exec(file.slice(READINGS_DIR.length + 1))![1]!;
    const manifest = loadManifest(dir);
    if (![...manifest.keys()].some((key) => monthOf(key) === month)) {
      rmSync(join(dir, file), { force: true }); // a pack of no stored day: nothing to rewrite
      return;
    }
    writeMonthPack(join(dir, READINGS_DIR), month, manifest, () => undefined);
  },
};

/**
 * A store of 0.1.0's unmarked generated sample only (`legacy-sample.ts`): its days are marked as
 * sample data, so every answer says so and the first real ingest removes them. The manifest is
 * written first: a kill before `sample.json` leaves the step pending, and it runs again.
 */
export const markLegacySample: Migration = {
  name: "mark the days 0.1.0's make serve generated (DATA_DIR/sample/) as sample data",
  pending(dir) {
    const found = findLegacySample(dir);
    return found !== undefined && found.otherDays === 0 ? [MANIFEST_FILE] : [];
  },
  apply: markAllSample,
};

function markAllSample(dir: string): void {
  const manifest = loadManifest(dir);
  writeManifest(dir, new Map([...manifest].map(([key, entry]) => [key, { ...entry, sample: true }])));
  markSample(dir);
}

/** The format steps, oldest first, which a server also runs after it starts. A format change adds its step here. */
export const FORMAT_MIGRATIONS: readonly Migration[] = [packToCurrent];

/**
 * Every step `upgrade-store` runs: the one-time upgrades of old releases' stores (CHANGELOG.md,
 * 1.7.0: the 0.1.0 sample is marked by `npm run upgrade-store` only), then the format steps.
 */
export const MIGRATIONS: readonly Migration[] = [markLegacySample, ...FORMAT_MIGRATIONS];

/** The files of the store at `dir` that a step will rewrite. */
export function outdatedFiles(dir: string, migrations = MIGRATIONS): Outdated[] {
  return migrations.flatMap((m) => m.pending(dir).map((file) => ({ file, migration: m.name })));
}

/** Migrates every outdated file now, under the ingest lock; returns what it rewrote. */
export function upgradeStore(dir: string, migrations = MIGRATIONS): Outdated[] {
  return withLock(join(dir, INGEST_LOCK), () => {
    const done: Outdated[] = [];
    for (const m of migrations) {
      for (const file of m.pending(dir)) {
        m.apply(dir, file);
        done.push({ file, migration: m.name });
      }
    }
    return done;
  });
}

/**
 * Migrates the outdated files one at a time, each under the ingest lock taken without blocking
 * the event loop, for a server that has started serving. A file another process migrated
 * meanwhile is passed over. Resolves to what this process rewrote.
 */
export async function upgradeInBackground(
  dir: string,
  log: (line: string) => void,
  migrations = FORMAT_MIGRATIONS,
): Promise<Outdated[]> {
  const done: Outdated[] = [];
  for (const m of migrations) {
    for (const file of m.pending(dir)) {
      const applied = await withLockAsync(join(dir, INGEST_LOCK), () => {
        if (!m.pending(dir).includes(file)) return false;
        m.apply(dir, file);
        return true;
      });
      if (!applied) continue;
      done.push({ file, migration: m.name });
      log(`Upgraded ${file}: ${m.name}`);
    }
  }
  return done;
}
