/**
 * How the datasets of forecast issues (`issues`) are read: from every issue kept of the forecast
 * (`forecasts/forecast-issues.ts`), as seen by `as_of` (or now), by target hour: the newest issue
 * of each hour, or every issue (`issues=all`); per UTC day, the day's mean and peak of each.
 * Generated issues belong to the sample store: beside real readings (a pull that replaced the
 * sample but could not bring Eskom's forecast yet) there is no forecast to serve.
 */
import {
  dailyForecastRecords,
  forecastHours,
  hourlyForecastRecords,
  type IssueMode,
} from "../forecasts/forecast-query.ts";
import { type ForecastIssues, type IssueSource, NO_ISSUES } from "../forecasts/forecast-issues.ts";
import type { DatasetDoc, RangeRequest } from "../records/dataset.ts";
import type { RecordReader, RecordView } from "../records/record-reader.ts";
import { dayRange, formatInstant } from "../time.ts";

/** A dataset of forecast issues: the portal's file they come from. */
export interface IssuesDataset extends DatasetDoc {
  readonly kind: "issues";
  readonly file: string;
}

// The newest issue seen by `asOf`, as UTC ms, or null.
function lastIssued(issues: IssueSource, asOf: number): number | null {
  const seen = issues.index().filter((entry) => Date.parse(entry.issued_at) <= asOf);
  return seen.length === 0 ? null : Date.parse(seen.at(-1)!.issued_at);
}

// The records of a range: target hours at 1h, whole UTC days at 1d.
function records(issues: IssueSource, range: RangeRequest, asOf: number) {
  const mode = range.options.issues as IssueMode;
  const { from, to } =
    range.interval === "1h" ? { from: range.start, to: range.end } : dayRange(range.start, range.end);
  const hours = forecastHours(issues, { from, to, asOf, mode });
  return range.interval === "1h" ? hourlyForecastRecords(hours) : dailyForecastRecords(hours, mode);
}

/** The reader of the issues kept in `kept`; `sampleStore` says whether the readings are sample data. */
export function issuesReader(
  kept: ForecastIssues,
  options: { now: () => number; sampleStore: () => boolean },
): RecordReader {
  return {
    snapshot() {
      const issues = kept.sample && !options.sampleStore() ? NO_ISSUES : kept;
      // An empty forecast beside a generated sample store is part of that sample.
      const sample = issues.sample || (issues.index().length === 0 && options.sampleStore());
      return {
        version: JSON.stringify([issues.version, sample]),
        sample,
        modified: lastIssued(issues, options.now()),
        tag: () => issues.version,
        asOfFloor: () => {
          const first = issues.index()[0];
          return {
            first: first === undefined ? null : Date.parse(first.issued_at),
            what: "the first forecast issue",
            none: "no issue is kept yet",
            since: "the first was seen at",
          };
        },
        view(asOf): RecordView {
          const at = asOf ?? options.now();
          const last = lastIssued(issues, at);
          return {
            records: (piece) => records(issues, piece, at),
            status: (range) => ({
              issues: range.options.issues,
              last_issued: last === null ? null : formatInstant(last, last % 1000 !== 0),
            }),
            modified: last,
          };
        },
      };
    },
  };
}
