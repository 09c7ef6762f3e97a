/**
 * Every revision of one portal file of weeks or months (docs/data.md: "Weekly and monthly
 * availability"). Each download is the file's whole table as it stands (the weeks of the financial
 * year to date, the months so far); a revision keeps only the periods it added or changed, stamped
 * with the instant the download was received. The table as of an instant is every revision up to
 * it, the later over the earlier, so a week the file no longer lists (a financial year that ended)
 * keeps its last value, and `as_of` gives what was known then.
 *
 * On disk: `DATA_DIR/periods/<file>.json`, replaced atomically under the ingest lock. A reader
 * checks it against its schema and serves nothing from a damaged one.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { fsyncDirectory, removeStaleTempFiles, writeFileAtomic } from "../files/atomic-write.ts";
import { fileStamp } from "../files/file-stamp.ts";
import { parseDocument } from "../files/json-document.ts";
import { withLock } from "../files/lock-file.ts";
import type { PeriodFile, PeriodValue } from "../source/period-csv.ts";
import { INGEST_LOCK } from "./pending-ingest.ts";

/** Where the revisions are kept, under DATA_DIR. */
export const PERIODS_DIR = "periods";

const RevisionSchema = v.object({
  received_at: v.pipe(v.string(), v.isoTimestamp()),
  source_sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  sample: v.optional(v.literal(true)),
  periods: v.record(
    v.pipe(v.string(), v.isoDate()),
    v.record(v.string(), v.nullable(v.union([v.number(), v.string()]))),
  ),
});

const DocumentSchema = v.object({
  version: v.literal(1),
  file: v.string(),
  revisions: v.array(RevisionSchema),
});

/** One revision: when it was received and the periods it added or changed. */
export type Revision = v.InferOutput<typeof RevisionSchema>;

/** A period as of an instant: its values and when the revision that gave them was received. */
export interface KeptPeriod {
  readonly period: string;
  readonly values: Readonly<Record<string, PeriodValue>>;
  readonly receivedAt: number;
}

/** Why the revisions cannot be served: the file is not what was written. */
export class DamagedPeriodsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DamagedPeriodsError";
  }
}

/** What a download added to the revisions. */
export interface PeriodsAdded {
  readonly added: number;
  readonly revised: number;
  /** The newest period the download holds, or null. */
  readonly newest: string | null;
  /** Revisions of generated sample data removed before this real file was kept. */
  readonly sampleRemoved: number;
}

const sameValues = (a: Readonly<Record<string, PeriodValue>>, b: Readonly<Record<string, PeriodValue>>) => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => (a[key] ?? null) === (b[key] ?? null));
};

/** The revisions of one file in one data directory. */
export class PeriodRevisions {
  readonly file: string;
  readonly #dir: string;
  readonly #path: string;
  #stamp = "";
  #revisions: readonly Revision[] = [];
  #hash = "";

  constructor(dataDir: string, file: string) {
    this.file = file;
    this.#dir = dataDir;
    this.#path = join(dataDir, PERIODS_DIR, file.replace(/\.csv$/, ".json"));
  }

  /** Every revision, oldest first (reread only when the file changed). */
  revisions(): readonly Revision[] {
    const stamp = fileStamp(this.#path);
    if (stamp === this.#stamp) return this.#revisions;
    if (stamp === "none") {
      this.#revisions = [];
      this.#hash = "";
    } else {
      const text = readFileSync(this.#path, "utf8");
      try {
        this.#revisions = parseDocument(text, DocumentSchema, this.#path).revisions;
      } catch (error) {
        throw new DamagedPeriodsError(`${(error as Error).message}; restore it from a backup`);
      }
      this.#hash = createHash("sha256").update(text).digest("hex");
    }
    this.#stamp = stamp;
    return this.#revisions;
  }

  /** The hash of the file as last read: it changes with every revision (for ETags). */
  get version(): string {
    this.revisions();
    return this.#hash;
  }

  /** Whether the revisions are generated sample data. */
  get sample(): boolean {
    return this.revisions().some((r) => r.sample === true);
  }

  /** When the first revision was received (UTC ms), or null. */
  firstReceived(): number | null {
    const first = this.revisions()[0];
    return first === undefined ? null : Date.parse(first.received_at);
  }

  /** The newest revision received at or before `asOf` (UTC ms), or null. */
  lastReceived(asOf: number): number | null {
    let last: number | null = null;
    for (const r of this.revisions()) {
      const at = Date.parse(r.received_at);
      if (at <= asOf) last = at;
    }
    return last;
  }

  /** Every period as it stood at `asOf` (UTC ms), by first day, oldest first. */
  asOf(asOf: number): KeptPeriod[] {
    const kept = new Map<string, KeptPeriod>();
    for (const revision of this.revisions()) {
      const receivedAt = Date.parse(revision.received_at);
      if (receivedAt > asOf) break;
      for (const [period, values] of Object.entries(revision.periods)) {
        kept.set(period, { period, values, receivedAt });
      }
    }
    return [...kept.values()].sort((a, b) => (a.period < b.period ? -1 : 1));
  }

  /**
   * Keeps what `file` adds or changes as a revision received at `receivedAt`. Generated sample
   * data is never kept beside Eskom's: the first real file removes it.
   */
  add(file: PeriodFile, options: { receivedAt: number; sha256: string; sample?: boolean }): PeriodsAdded {
    return withLock(join(this.#dir, INGEST_LOCK), () => {
      mkdirSync(join(this.#dir, PERIODS_DIR), { recursive: true });
      removeStaleTempFiles(join(this.#dir, PERIODS_DIR));
      this.#stamp = ""; // read under the lock, whatever was cached
      const sample = options.sample === true;
      const all = this.revisions();
      const kept = all.filter((r) => (r.sample === true) === sample);
      if (sample && kept.length < all.length) {
        throw new RangeError(`Generated sample data is not added beside Eskom's ${this.file}`);
      }
      const newest = kept.at(-1);
      if (newest !== undefined && Date.parse(newest.received_at) >= options.receivedAt) {
        throw new RangeError(
          `A download of ${this.file} received at ${new Date(options.receivedAt).toISOString()} is not newer than the newest kept, of ${newest.received_at}`,
        );
      }
      const before = new Map<string, Readonly<Record<string, PeriodValue>>>();
      for (const r of kept)
        for (const [period, values] of Object.entries(r.periods)) before.set(period, values);
      const periods: Record<string, Record<string, PeriodValue>> = {};
      let added = 0;
      let revised = 0;
      for (const row of file.rows) {
        const old = before.get(row.period);
        if (old !== undefined && sameValues(old, row.values)) continue;
        periods[row.period] = { ...row.values };
        if (old === undefined) added++;
        else revised++;
      }
      const sampleRemoved = all.length - kept.length;
      const result = { added, revised, newest: file.rows.at(-1)?.period ?? null, sampleRemoved };
      if (added + revised === 0 && sampleRemoved === 0) return result;
      const revision: Revision = {
        received_at: new Date(options.receivedAt).toISOString(),
        source_sha256: options.sha256,
        ...(sample ? { sample: true as const } : {}),
        periods,
      };
      const revisions = added + revised === 0 ? kept : [...kept, revision];
      writeFileAtomic(this.#path, JSON.stringify({ version: 1, file: this.file, revisions }, null, 1) + "\n");
      fsyncDirectory(join(this.#dir, PERIODS_DIR));
      return result;
    });
  }
}
