/**
 * A PowerBI report's rows as the CSV it stands in for (docs/data.md: "PowerBI reports"): one line
 * per hour of the visual's time category, the series under the CSV's own header names, so that the
 * ingest reads them with every check a downloaded file gets (its form, bounds, row check). The
 * category is the model's wall clock written as if it were UTC: in Eskom's reports that is SAST,
 * as the CSV's `DateTimeKey` is, and it is written back as the CSV writes it (`2026-01-23 00:00:00`).
 */
import { type DecodedAnswer, PowerBiAnswerError } from "./powerbi-answer.ts";
import type { VisualQuery } from "./powerbi-query.ts";

/** The rows of a report's answers: the CSV's text, how many hours, and the first and last. */
export interface ReportTable {
  readonly csv: string;
  readonly hours: number;
  /** The first and last stamp of the window, as written (SAST), or null when it had no row. */
  readonly first: string | null;
  readonly last: string | null;
}

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

// A series value as the CSV writes it: a number, or blank.
function cellText(value: unknown, where: string): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "string" && NUMBER.test(value.trim())) return String(Number(value.trim()));
  throw new PowerBiAnswerError(`${where}: ${JSON.stringify(value)} is not a number`);
}

// The wall-clock stamp the datetime stands for, as the CSV writes it.
function stampText(value: unknown, where: string): string {
  if (typeof value !== "number" || !Number.isInteger(value))
    throw new PowerBiAnswerError(`${where}: the time ${JSON.stringify(value)} is not epoch milliseconds`);
  return new Date(value).toISOString().slice(0, 19).replace("T", " ");
}

/**
 * The answers' rows under `header` (the CSV's names, normalized; the first the time): each answer's
 * columns found by the names the query gave them, never by their order. Throws a
 * PowerBiAnswerError when a column the query asked for is not in an answer.
 */
export function reportTable(
  answers: readonly DecodedAnswer[],
  visual: VisualQuery,
  header: readonly string[],
): ReportTable {
  const lines = [header.join(",")];
  let first: string | null = null;
  let last: string | null = null;
  const seen = new Set<string>();
  answers.forEach((answer, page) => {
    const keyOf = new Map<string, string>();
    for (const column of answer.columns) {
      const wanted = visual.names.get(column.name);
      if (wanted !== undefined) keyOf.set(wanted, column.key);
    }
    const missing = header.filter((name, i) => i > 0 && !keyOf.has(name));
    const category = [...visual.names.values()][0]!;
    if (!keyOf.has(category) || missing.length > 0)
      throw new PowerBiAnswerError(
        `page ${page + 1}: the answer has no column of ${[...(keyOf.has(category) ? [] : [category]), ...missing].join(", ")}: its columns are ${answer.columns.map((c) => c.name).join(", ")}`,
      );
    answer.rows.forEach((row, i) => {
      const where = `page ${page + 1} row ${i}`;
      const stamp = stampText(row.values[keyOf.get(category)!], where);
      if (seen.has(stamp)) throw new PowerBiAnswerError(`${where}: the hour ${stamp} came twice`);
      seen.add(stamp);
      first = first === null || stamp < first ? stamp : first;
      last = last === null || stamp > last ? stamp : last;
      lines.push(
        [stamp, ...header.slice(1).map((name) => cellText(row.values[keyOf.get(name)!], where))].join(","),
      );
    });
  });
  return { csv: lines.join("\n") + "\n", hours: seen.size, first, last };
}
