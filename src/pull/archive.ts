/**
 * Every body the pull receives, kept once by its content hash, and a log of every attempt
 * (docs/operations.md: "The download archive"), in `DATA_DIR/archive/`:
 *
 * - `bodies/<sha256>.gz`: the body as received, gzip-compressed (`zcat` reads it);
 * - `downloads.jsonl`: a line per attempt, appended and fsynced: when, the page, the link, the
 *   HTTP status, the validators, the body's hash, the outcome, and the rows stored and skipped.
 *   An operator's acceptance of a changed header is a line too, so that a replay repeats it.
 *
 * A body is written (atomically) before its attempt is logged, so a line never names a body that
 * is not there. `npm run replay-archive` rebuilds a store from this archive alone.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import * as v from "valibot";
import { appendLine } from "../files/append-line.ts";
import { writeFileAtomic } from "../files/atomic-write.ts";

export const ARCHIVE_DIR = "archive";
export const BODIES = "bodies";
export const ATTEMPTS_FILE = "downloads.jsonl";

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

const AttemptSchema = v.object({
  at: v.pipe(v.string(), v.isoTimestamp()),
  file: v.string(),
  /** Since 1.9: the file's PowerBI report was read in its stead; the body kept is its rows as that CSV. */
  via: v.optional(v.literal("powerbi")),
  page: v.nullable(v.string()),
  page_status: v.nullable(v.number()),
  link: v.nullable(v.string()),
  status: v.nullable(v.number()),
  etag: v.optional(v.string()),
  last_modified: v.optional(v.string()),
  sha256: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/))),
  bytes: v.optional(Count),
  content_type: v.optional(v.string()),
  outcome: v.picklist([
    "ingested",
    "issued",
    "unchanged",
    "not-modified",
    "refused",
    "failed",
    "stopped",
    /** Written up to 1.8 for a file the portal no longer linked. */
    "unpublished",
    "accepted-header",
  ]),
  detail: v.optional(v.string()),
  hours_added: v.optional(Count),
  hours_revised: v.optional(Count),
  /** Since 1.9, for a file of weeks or months. */
  periods_added: v.optional(Count),
  periods_revised: v.optional(Count),
  rows: v.optional(
    v.object({
      read: Count,
      stored: Count,
      blank: Count,
      placeholder: Count,
      uncertain: Count,
      future: Count,
      /** Since 1.9. */
      cut: v.optional(Count),
    }),
  ),
  /** For `accepted-header`: the names accepted. */
  header: v.optional(v.array(v.string())),
});

/** One line of the attempt log. */
export type Attempt = v.InferOutput<typeof AttemptSchema>;

/** The SHA-256 of a body, hex. */
export function sha256Of(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("hex");
}

function bodyPath(archive: string, sha256: string): string {
  return join(archive, BODIES, `${sha256}.gz`);
}

/** Keeps `body` in the archive at `archive` (once per content); returns its hash. */
export function keepBody(archive: string, body: Uint8Array): string {
  const sha256 = sha256Of(body);
  const path = bodyPath(archive, sha256);
  if (!existsSync(path)) {
    mkdirSync(join(archive, BODIES), { recursive: true });
    writeFileAtomic(path, gzipSync(body));
  }
  return sha256;
}

/** A kept body, checked against its hash; throws when it is missing or damaged. */
export function readBody(archive: string, sha256: string): Buffer {
  const path = bodyPath(archive, sha256);
  let body: Buffer;
  try {
    body = gunzipSync(readFileSync(path));
  } catch (error) {
    throw new Error(`Cannot read the archived body ${path}: ${(error as Error).message}`);
  }
  if (sha256Of(body) !== sha256) throw new Error(`The archived body ${path} does not match its hash`);
  return body;
}

/** Appends one attempt to the log, durably. */
export function logAttempt(archive: string, attempt: Attempt): void {
  mkdirSync(archive, { recursive: true });
  appendLine(join(archive, ATTEMPTS_FILE), JSON.stringify(attempt) + "\n");
}

/**
 * The logged attempts, oldest first. A line that does not parse is the torn end of an append a
 * killed pull left: it is skipped, and counted in `torn`.
 */
export function readAttempts(archive: string): { attempts: Attempt[]; torn: number } {
  const path = join(archive, ATTEMPTS_FILE);
  if (!existsSync(path)) return { attempts: [], torn: 0 };
  const attempts: Attempt[] = [];
  let torn = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line === "") continue;
    try {
      attempts.push(v.parse(AttemptSchema, JSON.parse(line)));
    } catch {
      torn++;
    }
  }
  return { attempts, torn };
}
