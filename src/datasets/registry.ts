/**
 * Every dataset the service serves, in the order the catalog, the API reference and the explorer
 * list them. A dataset is one definition file beside this one; its routes, its entry in the
 * catalog and the OpenAPI document, its field tables in docs/api.md, the portal files it reads,
 * the pull's events, the explorer's list and charts and the MCP tools are derived from this list
 * and from the definitions, never kept beside them (docs/development.md: "Adding a dataset");
 * each is answered through the reader its kind of records has (`openReader`).
 */
import type { ForecastIssues } from "../forecasts/forecast-issues.ts";
import type { Dataset } from "../records/dataset.ts";
import type { RecordCache } from "../records/record-cache.ts";
import type { RecordReader } from "../records/record-reader.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { availability } from "./availability.ts";
import { availabilityMonthly } from "./availability-monthly.ts";
import { availabilityWeekly } from "./availability-weekly.ts";
import { forecastDemand } from "./forecast-demand.ts";
import { generationMix } from "./generation-mix.ts";
import { gridStress } from "./grid-stress.ts";
import { type IssuesDataset, issuesReader } from "./issues-reader.ts";
import { loadReduction } from "./load-reduction.ts";
import { loadSheddingOutlook } from "./load-shedding-outlook.ts";
import { type OutlookDataset, outlookReader } from "./outlook-reader.ts";
import { type PeriodDataset, periodsReader } from "./periods-reader.ts";
import { pumpedStorage } from "./pumped-storage.ts";
import { readingsReader } from "./readings-reader.ts";
import { supplyMargin } from "./supply-margin.ts";
import { systemState } from "./system-state.ts";

/** A dataset of stored hours: read from the portal's columns, or computed from other datasets'. */
export type HourlyDataset = Dataset & { readonly kind: "readings" | "computed" };

/** One dataset's definition, of any kind. */
export type DatasetDefinition = HourlyDataset | PeriodDataset | IssuesDataset | OutlookDataset;

/** Every dataset served. */
export const DATASETS: readonly DatasetDefinition[] = [
  systemState,
  generationMix,
  gridStress,
  loadSheddingOutlook,
  loadReduction,
  availability,
  supplyMargin,
  pumpedStorage,
  availabilityWeekly,
  availabilityMonthly,
  forecastDemand,
];

/** Whether a dataset's records are read from stored hours (it then has `/latest`). */
export function isHourly(dataset: DatasetDefinition): dataset is HourlyDataset {
  return dataset.kind === "readings" || dataset.kind === "computed";
}

/** Where the service's records are kept. */
export interface RecordStores {
  readonly store: ReadingStore;
  readonly forecasts: ForecastIssues;
  /** Records per day of the datasets of stored hours, serialized once. */
  readonly records: RecordCache;
  readonly now: () => number;
}

/** The reader of `dataset` over `stores`. */
export function openReader(dataset: DatasetDefinition, stores: RecordStores): RecordReader {
  // Periods and issues generated as sample data are served only beside a sample store.
  const clock = { now: stores.now, sampleStore: () => stores.store.refresh().sample };
  if (dataset.kind === "periods") return periodsReader(dataset, stores.store.dir, clock);
  if (dataset.kind === "issues") return issuesReader(stores.forecasts, clock);
  if (dataset.kind === "outlook") return outlookReader(stores.store, stores.forecasts, stores.now);
  return readingsReader(dataset, stores.store, stores.records);
}
