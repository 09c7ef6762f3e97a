/**
 * What `pull` remembers between runs, in `DATA_DIR/pull-state.json`: per portal file, the URL it
 * came from, its validators (for conditional requests) and its header row (a changed header is
 * refused). `DATA_DIR/pull-succeeded` is an empty file whose modification time is the last pull
 * in which every file was current or ingested: a pull that finds nothing new changes no content.
 */
import { closeSync, existsSync, openSync, readFileSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { parseDocument } from "../files/json-document.ts";

export const PULL_STATE_FILE = "pull-state.json";
export const PULL_SUCCEEDED_FILE = "pull-succeeded";

const FileStateSchema = v.object({
  url: v.string(),
  etag: v.optional(v.string()),
  lastModified: v.optional(v.string()),
  header: v.string(),
  ingested: v.pipe(v.string(), v.isoTimestamp()),
});
const PullStateSchema = v.object({ format: v.literal(1), files: v.record(v.string(), FileStateSchema) });

/** What is remembered of one portal file. */
export type FileState = v.InferOutput<typeof FileStateSchema>;
export type PullState = v.InferOutput<typeof PullStateSchema>;

/** The remembered state (empty before the first pull); throws a SyntaxError for a damaged file. */
export function readPullState(dir: string): PullState {
  const path = join(dir, PULL_STATE_FILE);
  return existsSync(path)
    ? parseDocument(readFileSync(path, "utf8"), PullStateSchema, PULL_STATE_FILE)
    : { format: 1, files: {} };
}

/** Replaces the state atomically. */
export function writePullState(dir: string, state: PullState): void {
  writeFileAtomic(join(dir, PULL_STATE_FILE), JSON.stringify(state, null, 2) + "\n");
}

/** Marks a successful pull at `at` (UTC ms). */
export function markPullSucceeded(dir: string, at: number): void {
  const path = join(dir, PULL_SUCCEEDED_FILE);
  if (!existsSync(path)) closeSync(openSync(path, "w"));
  utimesSync(path, at / 1000, at / 1000);
}

/** When the last successful pull ended (UTC ms), or null when none has. */
export function lastSuccessfulPull(dir: string): number | null {
  const stat = statSync(join(dir, PULL_SUCCEEDED_FILE), { throwIfNoEntry: false });
  return stat === undefined ? null : stat.mtimeMs;
}

/** The pull's runs by outcome, kept in `pull-runs.json` (for the metrics). */
export interface PullRuns {
  ok: number;
  failed: number;
}

export const PULL_RUNS_FILE = "pull-runs.json";

const PullRunsSchema = v.object({
  ok: v.pipe(v.number(), v.integer(), v.minValue(0)),
  failed: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

/** The runs recorded so far (none when the file is missing or unreadable: it is only informative). */
export function readPullRuns(dir: string): PullRuns {
  try {
    const parsed = v.safeParse(PullRunsSchema, JSON.parse(readFileSync(join(dir, PULL_RUNS_FILE), "utf8")));
    return parsed.success ? parsed.output : { ok: 0, failed: 0 };
  } catch {
    return { ok: 0, failed: 0 };
  }
}

/** Counts one more run with `outcome` (pulls run one at a time, from a timer). */
export function recordPullRun(dir: string, outcome: keyof PullRuns): void {
  const runs = readPullRuns(dir);
  runs[outcome]++;
  writeFileAtomic(join(dir, PULL_RUNS_FILE), JSON.stringify(runs) + "\n");
}
