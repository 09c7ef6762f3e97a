/**
 * `/latest` of a dataset (docs/api.md: "The newest hours"): the newest `hours` hourly records
 * (1 by default) up to the newest hour holding an actual reading, without knowing when that was.
 * It answers as the range ending after the dataset's newest record at or before that hour, so
 * the envelope, headers, caching and sample marking are those of a range.
 */
import * as v from "valibot";
import type { Dataset, DatasetParameter } from "../records/dataset.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { DAY_MS, HOUR_MS } from "../time.ts";
import type { QueryParameter } from "./route-doc.ts";
import { checkNames, columnsOf, type ParsedRange, parseOptions, SETTING_PARAMETERS } from "./range-query.ts";
import type { Zone } from "../periods.ts";

/** The most hours `/latest` gives: 366 days, JSON's bound for a range. */
export const MAX_LATEST_HOURS = 366 * 24;

/** How far back the newest record is looked for before the newest actual hour: a year. */
const SEARCH_DAYS = 366;

/** `hours` of `/latest`. */
export const HOURS_PARAMETER: QueryParameter = {
  schema: v.pipe(v.string(), v.regex(/^[1-9]\d{0,3}$/), v.transform(Number), v.maxValue(MAX_LATEST_HOURS)),
  expected: `a whole number of hours from 1 to ${MAX_LATEST_HOURS}`,
  default: 1,
  description: `How many of the newest hours to give (1 to ${MAX_LATEST_HOURS}); 1 by default.`,
  example: "24",
};

/** The newest hour (UTC ms) of `dataset` with a record, at or before `last`; undefined when none in a year. */
function newestRecord(
  dataset: Dataset,
  store: ReadingStore,
  last: number,
  options: Readonly<Record<string, unknown>>,
): number | undefined {
  const end = last + HOUR_MS;
  for (let back = 0; back < SEARCH_DAYS; back += 7) {
    const window = { start: end - (back + 7) * DAY_MS, end: end - back * DAY_MS, interval: "1h" as const };
    const records = dataset.records(store, { ...window, options });
    const newest = records.at(-1);
    if (newest !== undefined) return Date.parse(newest.ts as string);
  }
  return undefined;
}

/** Parses a `/latest` query into the range it answers as; throws a 400. */
export function parseLatestQuery(
  params: URLSearchParams,
  dataset: Dataset,
  store: ReadingStore,
  extras: Readonly<Record<string, DatasetParameter>>,
): ParsedRange {
  const own = { hours: HOURS_PARAMETER, tz: SETTING_PARAMETERS.tz, columns: SETTING_PARAMETERS.columns };
  checkNames(params, [...Object.keys(own), ...Object.keys(extras)], []);
  const settings = parseOptions(params, own);
  const options = parseOptions(params, extras);
  const last = store.refresh().lastActual;
  const newest = last === null ? undefined : newestRecord(dataset, store, last, options);
  // No record in the year before the newest actual hour (or an empty store): an empty range there.
  const end = (newest ?? last ?? Math.floor(Date.now() / HOUR_MS) * HOUR_MS) + HOUR_MS;
  const hours = settings.hours as number;
  return {
    start: end - hours * HOUR_MS,
    end,
    interval: "1h",
    options,
    startFractional: false,
    endFractional: false,
    asked: "1h",
    zone: settings.tz as Zone,
    agg: "mean",
    columns: columnsOf(settings),
  };
}
