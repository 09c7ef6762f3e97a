/** What an ingest reports: its summary, and its progress as it goes. */
import { SKIP_REASONS, type SkipReason } from "../source/portal-csv.ts";
import type { Disagreement } from "./merge.ts";

/** What one call did; `failures` lists the files refused, with the reason. */
export interface IngestSummary {
  readonly files: number;
  readonly rowsRead: number;
  /** Rows that hold a reading (rows read less those skipped). */
  readonly rowsStored: number;
  readonly hoursChanged: number;
  /** Hours that had no reading before. */
  readonly hoursAdded: number;
  /** Hours whose stored values changed (a value filled in or corrected). */
  readonly hoursRevised: number;
  /** The first and last hour added or revised (UTC ms), or null when none was. */
  readonly firstChanged: number | null;
  readonly lastChanged: number | null;
  readonly daysTouched: number;
  readonly daysWritten: number;
  /** Rows not stored, by reason (`SkipReason`). */
  readonly skipped: Record<SkipReason, number>;
  /** The first row skipped for each reason: its file and line. */
  readonly skippedFirst: Partial<Record<SkipReason, { readonly file: string; readonly line: number }>>;
  /** The newest hour (UTC ms) with an observed value in the files merged, or null. */
  readonly newestObserved: number | null;
  /** Files refused (nothing of them was stored) and day files left alone because unreadable. */
  readonly failures: { file: string; kind: "source" | "day"; message: string }[];
  /** Damaged day files (not as the manifest recorded them) that this ingest rewrote whole. */
  readonly repaired: { file: string; message: string }[];
  /** Whether the store holds generated sample data after this call. */
  readonly sample: boolean;
  /** Day files of generated sample data this call removed before storing real data. */
  readonly sampleDaysRemoved: number;
  /** A PowerBI report's values a file's differed from (the file's kept), and the first of them. */
  readonly disagreements: number;
  readonly firstDisagreement?: Disagreement;
}

/** Progress as the work goes, for a terminal. */
export type IngestProgress = (stage: "parse" | "write", done: number, total: number) => void;

/** The files an ingest refused, and the day files it left alone. */
export type Failures = IngestSummary["failures"];

const SKIP_WORDS: Readonly<Record<SkipReason, string>> = {
  blank: "blank (hour not yet published)",
  placeholder: "all-zero placeholder (hour not yet published)",
  uncertain: "uncertain (not readable with certainty)",
  future: "future (actual values of hours to come left out)",
  cut: "cut short (fewer fields than the header)",
};

/** The rows skipped, every reason named, with the first line of each that skipped any. */
export function skippedText(
  skipped: Readonly<Record<SkipReason, number>>,
  first: IngestSummary["skippedFirst"] = {},
): string {
  return SKIP_REASONS.map((reason) => {
    const at = first[reason];
    const where = at === undefined ? "" : ` (first: line ${at.line} of ${at.file})`;
    return `${skipped[reason]} ${SKIP_WORDS[reason]}${where}`;
  }).join(", ");
}
