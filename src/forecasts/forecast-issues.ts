/**
 * Every issue of Eskom's 3-month hourly demand forecast (`Official_hourly_forecast_for_next_3_months.csv`),
 * kept apart from the readings (docs/data.md: "Eskom's 3-month forecast"). An issue is a download
 * whose forecast differs from the newest issue before it; it is stamped with the instant that
 * download was received (`issued_at`: no earlier than Eskom published it, so a backtest that reads
 * issues as of an instant never sees one it could not have had). A download that repeats the newest
 * issue value for value is the same issue, seen again, and adds nothing.
 *
 * On disk, under `DATA_DIR/forecasts/demand/`: one file per issue, `issues/<issued_at>.jsonl`
 * (a JSON line per target hour), written whole before `index.json` names it with its content hash;
 * the index is replaced atomically, last, under the ingest lock. A killed write leaves the index
 * as it was (an issue file it does not name is ignored and written again), and a reader checks
 * every issue file against its hash before serving it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { fsyncDirectory, removeStaleTempFiles, writeFileAtomic } from "../files/atomic-write.ts";
import { fileStamp } from "../files/file-stamp.ts";
import { withLock } from "../files/lock-file.ts";
import { parsePortalCsv, type PortalFile } from "../source/portal-csv.ts";
import { portalForm } from "../source/portal-forms.ts";
import { INGEST_LOCK } from "../store/pending-ingest.ts";

/** Where the issues are kept, under DATA_DIR. */
export const FORECASTS_DIR = join("forecasts", "demand");
const INDEX_FILE = "index.json";
const ISSUES_DIR = "issues";

/** The file the issues come from. */
export const FORECAST_FORM = portalForm("Official_hourly_forecast_for_next_3_months.csv");

/** The two forecasts of an issue, per target hour. */
export const FORECAST_COLUMNS = ["rsa_contracted_forecast", "residual_forecast"] as const;

/** One issue as the index names it. */
export interface IssueEntry {
  /** When the download that first carried it was received (UTC, ISO 8601 with Z). */
  readonly issued_at: string;
  /** Its file under `issues/`. */
  readonly file: string;
  /** The SHA-256 of that file's bytes. */
  readonly hash: string;
  /** Its first and last target hour (UTC, ISO 8601 with Z), and how many hours it holds. */
  readonly first: string;
  readonly last: string;
  readonly hours: number;
  /** The SHA-256 of the download it came from. */
  readonly source_sha256: string;
  /** Present when it is generated sample data, not Eskom's. */
  readonly sample?: true;
}

const IndexSchema = v.object({
  version: v.literal(1),
  issues: v.array(
    v.object({
      issued_at: v.string(),
      file: v.pipe(v.string(), v.regex(/^\d{8}T\d{6}(\d{3})?Z\.jsonl$/)),
      hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
      first: v.string(),
      last: v.string(),
      hours: v.pipe(v.number(), v.integer(), v.minValue(1)),
      source_sha256: v.string(),
      sample: v.optional(v.literal(true)),
    }),
  ),
});

/** An issue's forecasts: per target hour (ascending, UTC ms), its two values (NaN where blank). */
export interface Issue {
  readonly entry: IssueEntry;
  readonly issuedAt: number;
  readonly hours: Float64Array;
  readonly contracted: Float64Array;
  readonly residual: Float64Array;
}

/** Why the issues cannot be served: the index or an issue file is not what was written. */
export class DamagedForecastError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DamagedForecastError";
  }
}

/** What became of a download handed to `add`. */
export type Added =
  | { readonly result: "issued"; readonly entry: IssueEntry; readonly file: PortalFile }
  | { readonly result: "same"; readonly entry: IssueEntry; readonly file: PortalFile };

const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");
const stampOf = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.000Z$/, "Z")
    .replace(".", "");
const isoHour = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";

// The canonical text of an issue's rows: a JSON line per target hour, in time order.
function issueText(file: PortalFile): { text: string; hours: number[] } {
  const at = FORECAST_COLUMNS.map((name) => file.columnNames.indexOf(name));
  const rows = [...file.rows].sort((a, b) => a.hour - b.hour);
  let text = "";
  for (const row of rows) {
    let line = `{"ts":"${isoHour(row.hour)}"`;
    FORECAST_COLUMNS.forEach((name, i) => {
      const value = at[i]! < 0 ? NaN : row.values[at[i]!]!;
      if (!Number.isNaN(value)) line += `,"${name}":${JSON.stringify(value)}`;
    });
    text += line + "}\n";
  }
  return { text, hours: rows.map((row) => row.hour) };
}

// The rows of an issue file.
function parseIssue(entry: IssueEntry, text: string): Issue {
  const lines = text.split("\n").filter((line) => line !== "");
  const hours = new Float64Array(lines.length);
  const contracted = new Float64Array(lines.length).fill(NaN);
  const residual = new Float64Array(lines.length).fill(NaN);
  lines.forEach((line, i) => {
    const row = JSON.parse(line) as Record<string, string | number>;
    hours[i] = Date.parse(row.ts as string);
    if (typeof row.rsa_contracted_forecast === "number") contracted[i] = row.rsa_contracted_forecast;
    if (typeof row.residual_forecast === "number") residual[i] = row.residual_forecast;
  });
  return { entry, issuedAt: Date.parse(entry.issued_at), hours, contracted, residual };
}

/** The issues of one data directory. */
export class ForecastIssues {
  readonly dir: string;
  readonly #root: string;
  #stamp = "";
  #index: readonly IssueEntry[] = [];
  #indexHash = "";
  #issues = new Map<string, Issue>();

  constructor(dataDir: string) {
    this.dir = dataDir;
    this.#root = join(dataDir, FORECASTS_DIR);
  }

  /** Every issue, oldest first, as the index names them now (reread only when it changed). */
  index(): readonly IssueEntry[] {
    const path = join(this.#root, INDEX_FILE);
    const stamp = fileStamp(path);
    if (stamp === this.#stamp) return this.#index;
    if (stamp === "none") {
      this.#index = [];
      this.#indexHash = "";
    } else {
      const text = readFileSync(path, "utf8");
      let parsed: v.InferOutput<typeof IndexSchema>;
      try {
        parsed = v.parse(IndexSchema, JSON.parse(text));
      } catch (error) {
        throw new DamagedForecastError(`${path} is damaged: ${(error as Error).message}`);
      }
      this.#index = parsed.issues;
      this.#indexHash = hashOf(text);
    }
    this.#stamp = stamp;
    for (const file of this.#issues.keys()) {
      if (!this.#index.some((e) => e.file === file)) this.#issues.delete(file);
    }
    return this.#index;
  }

  /** The hash of the index as last read: it changes with every issue added (for ETags). */
  get version(): string {
    this.index();
    return this.#indexHash;
  }

  /** Whether the issues are generated sample data. */
  get sample(): boolean {
    return this.index().some((e) => e.sample === true);
  }

  /** An issue's forecasts, read once and checked against the index's hash. */
  issue(entry: IssueEntry): Issue {
    const kept = this.#issues.get(entry.file);
    if (kept !== undefined && kept.entry.hash === entry.hash) return kept;
    const path = join(this.#root, ISSUES_DIR, entry.file);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new DamagedForecastError(
        `The forecast issue of ${entry.issued_at} cannot be read: ${(error as Error).message}`,
      );
    }
    if (hashOf(text) !== entry.hash) {
      throw new DamagedForecastError(
        `The forecast issue of ${entry.issued_at} (${path}) is not as it was written; restore it from a backup or remove it from ${INDEX_FILE}`,
      );
    }
    const issue = parseIssue(entry, text);
    this.#issues.set(entry.file, issue);
    return issue;
  }

  /**
   * Reads a download of the forecast file received at `receivedAt` and keeps it as a new issue,
   * unless it repeats the newest issue value for value. Throws a `PortalCsvError` for a file that
   * cannot be read with certainty, as `ingest` does; nothing is written then.
   */
  add(
    text: string,
    options: {
      name: string;
      receivedAt: number;
      sha256: string;
      sample?: boolean;
      ignore?: ReadonlySet<string>;
    },
  ): Added {
    const file = parsePortalCsv(text, options.name, {
      receivedAt: options.receivedAt,
      form: FORECAST_FORM,
      ignore: options.ignore,
    });
    if (file.rows.length === 0) {
      throw new RangeError(`"${options.name}" holds no forecast hour`);
    }
    const { text: body, hours } = issueText(file);
    return withLock(join(this.dir, INGEST_LOCK), () => {
      mkdirSync(join(this.#root, ISSUES_DIR), { recursive: true });
      removeStaleTempFiles(this.#root);
      removeStaleTempFiles(join(this.#root, ISSUES_DIR));
      this.#stamp = ""; // read the index under the lock, whatever was cached
      const sample = options.sample === true;
      // The first real issue replaces a sample's; a sample is never added beside real issues.
      const index = this.index().filter((e) => (e.sample === true) === sample);
      if (sample && index.length < this.index().length) {
        throw new RangeError("Generated sample forecasts are not added beside Eskom's issues");
      }
      const newest = index.at(-1);
      if (newest !== undefined && hashOf(body) === newest.hash)
        return { result: "same", entry: newest, file };
      if (newest !== undefined && Date.parse(newest.issued_at) >= options.receivedAt) {
        throw new RangeError(
          `A forecast issue received at ${new Date(options.receivedAt).toISOString()} is not newer than the newest kept, of ${newest.issued_at}`,
        );
      }
      const entry: IssueEntry = {
        issued_at: new Date(options.receivedAt).toISOString(),
        file: `${stampOf(options.receivedAt)}.jsonl`,
        hash: hashOf(body),
        first: isoHour(hours[0]!),
        last: isoHour(hours.at(-1)!),
        hours: hours.length,
        source_sha256: options.sha256,
        ...(sample ? { sample: true as const } : {}),
      };
      this.#write(entry, body, [...index, entry]);
      return { result: "issued", entry, file };
    });
  }

  // The issue's file, then the index that names it (the commit), then what the index no longer names.
  #write(entry: IssueEntry, body: string, index: readonly IssueEntry[]): void {
    writeFileAtomic(join(this.#root, ISSUES_DIR, entry.file), body);
    fsyncDirectory(join(this.#root, ISSUES_DIR));
    const text = JSON.stringify({ version: 1, issues: index }, null, 1) + "\n";
    writeFileAtomic(join(this.#root, INDEX_FILE), text);
    fsyncDirectory(this.#root);
    this.#removeUnnamed(index);
  }

  // Issue files the index does not name (a write killed before the index was replaced).
  #removeUnnamed(index: readonly IssueEntry[]): void {
    const dir = join(this.#root, ISSUES_DIR);
    if (!existsSync(dir)) return;
    const named = new Set(index.map((e) => e.file));
    for (const name of readdirSync(dir)) if (!named.has(name)) rmSync(join(dir, name), { force: true });
  }
}

/** What a reader of the issues needs: the index, each issue, and the index's version and sample mark. */
export type IssueSource = Pick<ForecastIssues, "index" | "issue" | "version" | "sample">;

/** No issue at all. */
export const NO_ISSUES: IssueSource = {
  index: () => [],
  issue: (entry) => {
    throw new RangeError(`No forecast issue is served, not even that of ${entry.issued_at}`);
  },
  version: "",
  sample: false,
};

/** The hours an issue covers, as UTC ms: its first and last target hour. */
export function issueSpan(entry: IssueEntry): { first: number; last: number } {
  return { first: Date.parse(entry.first), last: Date.parse(entry.last) };
}
