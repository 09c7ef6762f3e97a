/**
 * The real Eskom files the evaluations read (`npm run evaluate-stress`, `npm run evaluate-outlook`)
 * and their command line: which files of a folder are exports, the temporary store they are
 * ingested into, and the refusals, each a sentence saying why and exit status 2, never a stack
 * trace: a folder that is not one, a file that is not an export, exports too short to score.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { processAlive } from "../src/files/process-alive.ts";
import { skippedText } from "../src/ingest/ingest-summary.ts";
import { createReadingStore, type ReadingStore } from "../src/store/reading-store.ts";

/**
 * The real files the published evaluation and the shipped fit come from, under the folder of the
 * Eskom data. The evaluation itself reads every export in the folder (`evaluationPaths`), so a
 * later export put beside these is judged too, each of its years by a fit of the years before it.
 */
export const EVALUATION_FILES = {
  exports: ["eskom_data_v1-1.csv", "export_2020-04_2022-06.csv"],
  stages: "load_shedding_stages.csv",
} as const;

/** Why the files given cannot be evaluated: the command exits 2, saying it (`refusing`). */
export class CannotEvaluate extends Error {}

// Exits 2, saying why: the command line cannot be evaluated.
function refuse(why: string): never {
  process.stderr.write(why + "\n");
  process.exit(2);
}

/** An evaluation command's work; a `CannotEvaluate` it throws exits 2 with its reason. */
export function refusing<T>(work: () => T): T {
  try {
    return work();
  } catch (e) {
    if (e instanceof CannotEvaluate) refuse(`Cannot evaluate: ${e.message}`);
    throw e;
  }
}

/**
 * The data-request exports in `dir`: every CSV file at its top level but the stage history (the
 * live portal downloads sit in folders of their own), in name order.
 */
export function exportsIn(dir: string): string[] {
  // statSync follows a symbolic link to the file it names.
  return readdirSync(dir)
    .filter((name) => name.toLowerCase().endsWith(".csv") && name !== EVALUATION_FILES.stages)
    .map((name) => join(dir, name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true)
    .sort();
}

/** The files to evaluate in `dir`: the stage history and the exports (`exportsIn`); or what is missing. */
export function evaluationPaths(dir: string): { exports: string[]; stages: string } | { missing: string } {
  const stages = join(dir, EVALUATION_FILES.stages);
  if (!existsSync(stages)) return { missing: `"${stages}" is missing` };
  const exports = exportsIn(dir);
  if (exports.length === 0) {
    return { missing: `${dir} holds no data-request export (a CSV file beside ${EVALUATION_FILES.stages})` };
  }
  return { exports, stages };
}

// `[DIR] [--write]`: DIR by default ../shared/data/eskom beside `root`.
function commandLine(argv: readonly string[], root: string): { write: boolean; dir: string } {
  const write = argv.includes("--write");
  const dir = resolve(argv.find((a) => !a.startsWith("--")) ?? join(root, "..", "shared", "data", "eskom"));
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true)
    refuse(`Cannot evaluate: ${dir} is not a folder. Pass the folder of the real Eskom files.`);
  return { write, dir };
}

// `--write` publishes: only of the exports the published fit and tables name.
function checkWrite(write: boolean, dir: string, exports: readonly string[]): void {
  if (!write || arePublishedExports(exports)) return;
  refuse(
    `Cannot --write: the published fit comes from ${EVALUATION_FILES.exports.join(" and ")} alone, ` +
      `and ${dir} holds ${exports.map((p) => basename(p)).join(", ")}. Evaluate other years without --write.`,
  );
}

/**
 * The command line of the grid-stress evaluation (`[DIR] [--write]`): the folder's exports and
 * stage history, and whether to write; exits 2, saying why, when the files are missing or
 * `--write` is asked of other files than the published ones.
 */
export function evaluationArgs(
  argv: readonly string[],
  root: string,
): { write: boolean; dir: string; paths: { exports: string[]; stages: string } } {
  const { write, dir } = commandLine(argv, root);
  const paths = evaluationPaths(dir);
  if ("missing" in paths)
    refuse(`Cannot evaluate: ${paths.missing}. Pass the folder of the real Eskom files.`);
  checkWrite(write, dir, paths.exports);
  return { write, dir, paths };
}

/**
 * The command line of an evaluation that needs the exports alone (the outlook's: its outcome is
 * the exports' own load reduction): as `evaluationArgs`, without the stage history.
 */
export function exportArgs(
  argv: readonly string[],
  root: string,
): { write: boolean; dir: string; exports: string[] } {
  const { write, dir } = commandLine(argv, root);
  const exports = exportsIn(dir);
  if (exports.length === 0)
    refuse(`Cannot evaluate: ${dir} holds no data-request export (a CSV file at its top level).`);
  checkWrite(write, dir, exports);
  return { write, dir, exports };
}

/** Whether these are exactly the exports the published evaluation and the shipped fit come from. */
export function arePublishedExports(exports: readonly string[]): boolean {
  const names = exports.map((path) => basename(path)).sort();
  return names.join("\n") === [...EVALUATION_FILES.exports].sort().join("\n");
}

// Writes to the temporary store: a full disk or a folder without permission is said, not thrown.
function attempt<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (typeof (error as NodeJS.ErrnoException).code !== "string") throw error;
    throw new CannotEvaluate(
      `the temporary store in ${tmpdir()} cannot be written (${(error as Error).message}): ` +
        "free some space there, or set TMPDIR to a folder with room",
    );
  }
}

/** The temporary stores' names begin with this and the pid of the evaluation that made them. */
const STORE_PREFIX = "gds-eval-";

/**
 * Removes the temporary stores in `folder` of evaluations that no longer run: one killed in its
 * work (which is synchronous, so no handler of a signal runs) cannot remove its own.
 */
export function removeAbandonedStores(folder: string): void {
  for (const name of readdirSync(folder)) {
    const pid = new RegExp(`^${STORE_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid)))
      rmSync(join(folder, name), { recursive: true, force: true });
  }
}

/**
 * `use` of the exports at `paths` in one temporary store, as an operator would ingest them (where
 * two hold the same hour, the later in the list gives its values), with the store's days in order;
 * the store is removed after, and so are those of evaluations killed before. `CannotEvaluate` when
 * a file is refused, none holds an hour or the store cannot be written.
 */
export function withExportStore<T>(
  paths: readonly string[],
  use: (store: ReadingStore, days: readonly string[]) => T,
): T {
  attempt(() => removeAbandonedStores(tmpdir()));
  const dir = attempt(() => mkdtempSync(join(tmpdir(), `${STORE_PREFIX}${process.pid}-`)));
  try {
    const summary = attempt(() => ingestFiles(paths, { dir }));
    if (summary.failures.length > 0)
      throw new CannotEvaluate(
        `a file was refused by the ingest: ${summary.failures.map((f) => f.message).join("; ")}`,
      );
    // Rows the ingest could not read with certainty are left out of the evaluation: say how many.
    if (Object.values(summary.skipped).some((n) => n > 0))
      process.stderr.write(
        `Rows skipped by the ingest: ${skippedText(summary.skipped, summary.skippedFirst)}\n`,
      );
    const store = createReadingStore({ dir, cacheDays: 10_000 });
    const days = [...store.refresh().manifest.keys()];
    if (days.length === 0)
      throw new CannotEvaluate(`the exports hold no hour (${paths.map((p) => basename(p)).join(", ")})`);
    return use(store, days);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
