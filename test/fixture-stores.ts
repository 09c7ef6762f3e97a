/**
 * Stores the tests build once per run and then only read (docs/development.md: "Tests"): the real
 * 2018 export, the portal's live files of February 2023, ten years of sample hours. Each is built
 * the first time a test asks for it, into the run's fixture folder (`GDS_TEST_FIXTURES`, which
 * run-suite.mjs makes and removes; a file run alone makes its own), under a lock, so that the
 * processes of a run build each once. A test serves one with `startServer`'s `storeDir`, which
 * keeps its keys, accounts and counts in a directory of its own: nothing writes into a fixture.
 */
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withLockAsync } from "../src/files/lock-file.ts";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { LIVE_SNAPSHOT, REAL_DATA_DIR } from "./helpers.ts";

let own: string | undefined;

// The run's fixture folder, or this process's (removed when it exits).
function root(): string {
  const given = process.env.GDS_TEST_FIXTURES;
  if (given !== undefined) return given;
  if (own === undefined) {
    const made = mkdtempSync(join(tmpdir(), "gds-fixtures-"));
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
    own = made;
  }
  return own;
}

/** The store `name`, built by `build` into an empty directory the first time any process asks. */
export async function fixtureStore(name: string, build: (dir: string) => void): Promise<string> {
  const dir = join(root(), name);
  if (existsSync(join(dir, ".built"))) return dir;
  // Building ten years takes a few seconds: a lock waits out another process's build of it.
  return withLockAsync(
    join(root(), `${name}.lock`),
    () => {
      if (existsSync(join(dir, ".built"))) return dir;
      const building = join(root(), `${name}.building-${process.pid}`);
      rmSync(building, { recursive: true, force: true });
      build(building);
      writeFileSync(join(building, ".built"), "");
      renameSync(building, dir);
      return dir;
    },
    { waitMs: 120_000 },
  );
}

// Ingests `paths` into `dir`; a failure is the fixture's fault, and says which.
function ingested(dir: string, paths: readonly string[]): void {
  const failures = ingestFiles(paths, { dir }).failures;
  if (failures.length > 0) throw new Error(`A fixture store did not ingest: ${JSON.stringify(failures)}`);
}

/** The real 2018 data-request export (`eskom_data_v1-1.csv`), ingested. */
export function export2018Store(): Promise<string> {
  return fixtureStore("export-2018", (dir) => ingested(dir, [join(REAL_DATA_DIR, "eskom_data_v1-1.csv")]));
}

/** The portal's live files of 2023-02-21, ingested: 2023-02-14 to 2023-02-19, and forecasts past it. */
export function liveSnapshotStore(): Promise<string> {
  return fixtureStore("live-2023", (dir) => ingested(dir, LIVE_SNAPSHOT));
}

/** The first day of the ten years of sample hours, and how many days they run. */
export const TEN_YEARS = { firstDay: "2016-01-01", days: 3653 } as const;

/** Ten years of sample hours, 2016 to 2025. */
export function tenYearStore(): Promise<string> {
  return fixtureStore("ten-years", (dir) => {
    const csv = join(mkdtempSync(join(tmpdir(), "gds-ten-years-")), "ten-years.csv");
    writeFileSync(csv, generateSampleExport(TEN_YEARS));
    try {
      ingested(dir, [csv]);
    } finally {
      rmSync(join(csv, ".."), { recursive: true, force: true });
    }
  });
}
