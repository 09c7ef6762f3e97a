/**
 * `verify-store`: checks every file of the store against the manifest, without changing any. A
 * day file must exist, hash to the manifest's hash and parse; each month pack's slots must carry
 * their checksum; the manifest must parse. What a problem means and how to repair it is in each
 * message; docs/data.md's "Damaged data" section says more. A file in an older format is not
 * damage: it is listed apart, with the migration that rewrites it (`migrations.ts`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isTempFile } from "../files/atomic-write.ts";
import { dayFileName, parseDay } from "./day-file.ts";
import {
  contentHash,
  loadManifest,
  MANIFEST_FILE,
  type Manifest,
  parseManifest,
  READINGS_DIR,
} from "./manifest.ts";
import { isPack, monthOf, packedHash, packName, packState, unpackDay } from "./month-pack.ts";
import { findLegacySample } from "./legacy-sample.ts";
import { type Outdated, outdatedFiles } from "./migrations.ts";
import { SAMPLE_REMOVING_FILE, sampleRemovalPending } from "./sample-mark.ts";
import { PENDING_INGEST_FILE, rerunHint, writeState } from "./pending-ingest.ts";

/** One damaged or inconsistent file, and what to do. */
export interface StoreProblem {
  readonly file: string;
  readonly problem: string;
}

const REINGEST = "re-ingest the source files that cover it";

function checkManifest(dir: string): StoreProblem[] {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) {
    return existsSync(join(dir, READINGS_DIR))
      ? [
          {
            file: MANIFEST_FILE,
            problem: "is missing; servers rebuild it from the day files; any ingest rewrites it",
          },
        ]
      : [];
  }
  try {
    parseManifest(readFileSync(path, "utf8"));
    return [];
  } catch (error) {
    return [
      {
        file: MANIFEST_FILE,
        problem: `cannot be read (${(error as Error).message}); servers rebuild it from the day files; any ingest rewrites it`,
      },
    ];
  }
}

function checkDay(dir: string, key: string, hash: string): StoreProblem | undefined {
  const file = join(READINGS_DIR, dayFileName(key));
  let text: string;
  try {
    text = readFileSync(join(dir, file), "utf8");
  } catch {
    return { file, problem: `is missing; ${REINGEST}` };
  }
  if (contentHash(text) !== hash) {
    return { file, problem: `does not match the manifest's hash (cut, altered or replaced); ${REINGEST}` };
  }
  try {
    parseDay(text, key);
  } catch (error) {
    return { file, problem: `${(error as Error).message}; ${REINGEST}` };
  }
  return undefined;
}

function checkPacks(dir: string, manifest: Manifest): StoreProblem[] {
  const problems: StoreProblem[] = [];
  for (const month of new Set([...manifest.keys()].map(monthOf))) {
    const file = join(READINGS_DIR, packName(month));
    if (!existsSync(join(dir, file))) continue; // packs are optional: readers use the day files
    const bytes = readFileSync(join(dir, file));
    if (packState(bytes) === "outdated") continue; // whole, in an older format: a migration's
    if (!isPack(bytes)) {
      problems.push({
        file,
        problem:
          "is not a readable pack; readers use the day files; the next ingest of the month rebuilds it",
      });
      continue;
    }
    for (const [key, entry] of manifest) {
      if (monthOf(key) !== month || packedHash(bytes, key) !== entry.hash) continue;
      if (unpackDay(bytes, key, entry.hash) === undefined) {
        problems.push({
          file,
          problem: `its slot for ${key} is damaged; readers use the day file; the next ingest of the month rebuilds it`,
        });
      }
    }
  }
  return problems;
}

/** What the store at `dir` holds: its days of real data and of generated sample data. */
export function storeMakeUp(dir: string): { realDays: number; sampleDays: number } {
  let sampleDays = 0;
  const manifest = loadManifest(dir);
  for (const entry of manifest.values()) if (entry.sample) sampleDays++;
  return { realDays: manifest.size - sampleDays, sampleDays };
}

/** What `checkStore` found: the store's state, its damage, its files still to migrate, its make-up. */
export interface StoreCheck {
  /** `whole`; `outdated`: whole, with files in an older format to migrate; `damaged`. */
  readonly state: "whole" | "outdated" | "damaged";
  readonly problems: StoreProblem[];
  readonly outdated: Outdated[];
  readonly realDays: number;
  readonly sampleDays: number;
}

/** Checks the store at `dir`: damage first, then what an upgrade would rewrite. */
export function checkStore(dir: string): StoreCheck {
  const problems = verifyStore(dir);
  const outdated = outdatedFiles(dir);
  const state = problems.length > 0 ? "damaged" : outdated.length > 0 ? "outdated" : "whole";
  return { state, problems, outdated, ...storeMakeUp(dir) };
}

/** Every problem in the store at `dir` (files in an older format are none); none for a whole store. */
export function verifyStore(dir: string): StoreProblem[] {
  const write = writeState(dir);
  if (write.state === "interrupted") {
    return [
      {
        file: existsSync(join(dir, PENDING_INGEST_FILE)) ? PENDING_INGEST_FILE : SAMPLE_REMOVING_FILE,
        problem: `says an ingest (started ${write.pending.started}) was killed or failed before it finished; servers answer 503 for every dataset until then; ${rerunHint(write.pending)}`,
      },
    ];
  }
  if (sampleRemovalPending(dir)) {
    return [
      {
        file: SAMPLE_REMOVING_FILE,
        problem:
          "says a removal of sample data was cut short; the store reads as empty; the next ingest (npm run ingest or make pull) finishes it",
      },
    ];
  }
  const problems = checkManifest(dir);
  const manifest = loadManifest(dir);
  for (const [key, entry] of manifest) {
    const problem = checkDay(dir, key, entry.hash);
    if (problem !== undefined) problems.push(problem);
  }
  const readings = join(dir, READINGS_DIR);
  if (existsSync(readings)) {
    for (const name of readdirSync(readings)) {
      const m = /^(\d{4}-\d{2}-\d{2})\.jsonl$/.exec(name);
      if (m !== null && !isTempFile(name) && !manifest.has(m[1]!)) {
        problems.push({
          file: join(READINGS_DIR, name),
          problem: "is not in the manifest (an interrupted ingest?); re-run it",
        });
      }
    }
  }
  return [...problems, ...checkPacks(dir, manifest), ...legacySampleProblems(dir, manifest)];
}

// 0.1.0's generated days beside real ones: served as real data, so a problem (a store of them
// only is not: a migration marks it).
function legacySampleProblems(dir: string, manifest: Manifest): StoreProblem[] {
  const found = findLegacySample(dir, manifest);
  if (found === undefined || found.otherDays === 0) return [];
  return found.files.map((file) => ({
    file,
    problem:
      `is the sample 0.1.0's make serve generated, and ${found.days.length} stored days (${found.days[0]} to ${found.days.at(-1)}) ` +
      `equal it: they are served as real data beside ${found.otherDays} real days. Remove them: move readings/, revisions/ ` +
      "and manifest.json aside and ingest or pull the portal's files again (CHANGELOG.md, 1.0.0, Upgrading from 0.1.0)",
  }));
}
