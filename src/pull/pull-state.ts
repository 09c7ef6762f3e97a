/**
 * What `pull` remembers between runs, in `DATA_DIR/pull-state.json`: per portal file, the last
 * link that worked and its validators (for conditional requests), the hash of the last body
 * ingested, a header the operator accepted, and why the file is refused, while it is.
 * `DATA_DIR/pull-succeeded` is an empty file whose modification time is the last pull in which
 * every file was current or ingested: a pull that finds nothing new changes no content.
 */
import { closeSync, existsSync, openSync, readFileSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { parseDocument } from "../files/json-document.ts";

export const PULL_STATE_FILE = "pull-state.json";
export const PULL_SUCCEEDED_FILE = "pull-succeeded";

const Instant = v.pipe(v.string(), v.isoTimestamp());

const RefusedSchema = v.object({
  /** When the refused download was received. */
  at: Instant,
  /**
   * `header`: its columns changed, until accepted; `content` or `download`: until a good one;
   * `empty`: a body with its header only (the file is then `gone`, not refused). `unpublished` was
   * written by releases up to 1.8 for a file now `gone` (read as such).
   */
  kind: v.picklist(["header", "content", "download", "empty", "unpublished"]),
  reason: v.string(),
  /** The refused body, kept in the archive. */
  sha256: v.optional(v.string()),
  /** The refused header's names (normalized), for `--accept-header`. */
  header: v.optional(v.array(v.string())),
});

const FileStateSchema = v.object({
  link: v.optional(v.string()),
  etag: v.optional(v.string()),
  lastModified: v.optional(v.string()),
  /** The last body ingested, by its SHA-256. */
  sha256: v.optional(v.string()),
  ingested: v.optional(Instant),
  /** A header the operator accepted in place of the known one (normalized names). */
  accepted: v.optional(v.array(v.string())),
  refused: v.optional(RefusedSchema),
  /** When the pull first tried the file. */
  firstTried: v.optional(Instant),
  /** When a download of it last answered (a body, or 304): its link works. */
  answered: v.optional(Instant),
  /** When a download last brought a new or revised hour, or a new forecast issue: its publication. */
  published: v.optional(Instant),
  /** The newest hour with an observed value that any download of it brought. */
  newest: v.optional(Instant),
  /** Hours from the newest observed hour to its download, for the last downloads with data (newest last). */
  lags: v.optional(v.array(v.number())),
  /** Since when its link answers 404 (or its page links none), or its body holds its header only. */
  gone: v.optional(v.object({ since: Instant, why: v.picklist(["404", "empty"]) })),
  /** Its state of publication as the last pull judged it, for the webhooks' `source.*` events. */
  announced: v.optional(v.picklist(["current", "late", "stopped"])),
});
const ReportStateSchema = v.object({
  /** The viewer's address the page embedded, and the report's resource key, at the last read. */
  viewUrl: v.optional(v.string()),
  resourceKey: v.optional(v.string()),
  /** When the pull last tried the report, and when it last read it whole. */
  tried: v.optional(Instant),
  read: v.optional(Instant),
  /** When a read last added or revised an hour: the report's publication. */
  published: v.optional(Instant),
  /** The window of hours (UTC) the last whole read gave, and its newest hour with values. */
  first: v.optional(Instant),
  last: v.optional(Instant),
  newest: v.optional(Instant),
  /** Hours the window had moved past before a read reached them: lost, as the report keeps no more. */
  missed: v.optional(v.object({ from: Instant, to: Instant, at: Instant })),
  /** Why the reads fail, while they do, and since when. */
  failing: v.optional(v.object({ since: Instant, reason: v.string() })),
});
const PullStateSchema = v.object({
  format: v.literal(2),
  files: v.record(v.string(), FileStateSchema),
  /** The PowerBI reports read in a stopped file's stead, by that file's name. */
  reports: v.optional(v.record(v.string(), ReportStateSchema)),
});

// Format 1 (releases up to 1.3): the URL fetched, its validators and the raw header row.
const V1Schema = v.object({
  format: v.literal(1),
  files: v.record(
    v.string(),
    v.object({
      url: v.string(),
      etag: v.optional(v.string()),
      lastModified: v.optional(v.string()),
      header: v.string(),
      ingested: Instant,
    }),
  ),
});

/** What is remembered of one portal file. */
export type FileState = v.InferOutput<typeof FileStateSchema>;
/** What is remembered of the PowerBI report read in a file's stead. */
export type ReportState = v.InferOutput<typeof ReportStateSchema>;
/** Why a file is refused, while it is. */
export type Refusal = v.InferOutput<typeof RefusedSchema>;
export type PullState = v.InferOutput<typeof PullStateSchema>;

/** The remembered state (empty before the first pull); throws a SyntaxError for a damaged file. */
export function readPullState(dir: string): PullState {
  const path = join(dir, PULL_STATE_FILE);
  if (!existsSync(path)) return { format: 2, files: {} };
  const text = readFileSync(path, "utf8");
  if (formatOf(text) !== 1) return withGoneFiles(parseDocument(text, PullStateSchema, PULL_STATE_FILE));
  const old = parseDocument(text, V1Schema, PULL_STATE_FILE);
  const files: Record<string, FileState> = {};
  for (const [name, { url, etag, lastModified, ingested }] of Object.entries(old.files)) {
    files[name] = { link: url, etag, lastModified, ingested };
  }
  return { format: 2, files };
}

// Up to 1.8 a file whose page linked none and whose URLs answered 404 was refused as `unpublished`:
// it is gone since then.
function withGoneFiles(state: PullState): PullState {
  for (const file of Object.values(state.files)) {
    if (file.refused?.kind !== "unpublished") continue;
    file.gone ??= { since: file.refused.at, why: "404" };
    file.refused = undefined;
  }
  return state;
}

// The document's format, or undefined when it is not a JSON object (parseDocument says why).
function formatOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { format?: unknown } | null)?.format;
  } catch {
    return undefined;
  }
}

/** Replaces the state atomically. */
export function writePullState(dir: string, state: PullState): void {
  writeFileAtomic(join(dir, PULL_STATE_FILE), JSON.stringify(state, null, 2) + "\n");
}

/** The files refused now, by name (a changed header stays refused until it is accepted). */
export function refusedFiles(dir: string): Map<string, Refusal> {
  let state: PullState;
  try {
    state = readPullState(dir);
  } catch {
    return new Map(); // only informative here; `pull` reports a damaged state file
  }
  const out = new Map<string, Refusal>();
  for (const [name, file] of Object.entries(state.files)) if (file.refused) out.set(name, file.refused);
  return out;
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
