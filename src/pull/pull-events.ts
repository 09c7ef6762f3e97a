/**
 * The webhook events a pull makes (docs/webhooks.md), once, when the store changes: the pull is
 * the one process that changes it from the portal. `data.published` for each dataset a file
 * brought new or revised hours (or weeks, months) to, `forecast.issued` for a new forecast issue,
 * `source.late`, `source.stopped` and `source.resumed` when a file's state of publication changed.
 * Each carries the API URL of the records, never the records.
 */
import { sourcesOf } from "../datasets/dataset-sources.ts";
import { DATASETS, type DatasetDefinition, isHourly } from "../datasets/registry.ts";
import { DAY_MS, HOUR_MS } from "../time.ts";
import type { WebhookEvent } from "../webhooks/outbox.ts";
import type { FileOutcome } from "./file-outcome.ts";
import type { FileState } from "./pull-state.ts";
import type { SourceFreshness, SourceState } from "./source-freshness.ts";

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

// The API URL of a dataset's records: the hours changed, at most their last 31 days; else the
// week (for weeks and months, the year) up to the newest hour.
function recordsUrl(
  dataset: DatasetDefinition,
  newest: string | undefined,
  changed?: { first: string; last: string },
): string {
  const path = dataset.path;
  const last = changed?.last ?? newest;
  if (last === undefined) return path;
  const end = Date.parse(last) + HOUR_MS;
  const periods = dataset.kind === "periods";
  const start =
    changed === undefined
      ? end - (periods ? 366 : 7) * DAY_MS
      : Math.max(Date.parse(changed.first), end - 31 * DAY_MS);
  return `${path}?start=${day(start)}&end=${day(end + DAY_MS)}`;
}

/** The events of one file's outcome in a pull, with the file's state after it, for `datasets`. */
export function fileEvents(
  outcome: FileOutcome,
  state: FileState,
  datasets: readonly DatasetDefinition[] = DATASETS,
): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  const added = outcome.hoursAdded ?? outcome.periodsAdded ?? 0;
  const revised = outcome.hoursRevised ?? outcome.periodsRevised ?? 0;
  if (outcome.result === "ingested" && added + revised > 0) {
    const unit = outcome.periodsAdded === undefined ? "hours" : "periods";
    // A forecast's new issue is `forecast.issued`, below; the outlook is issued, not published.
    for (const dataset of datasets) {
      if (dataset.kind === "issues" || dataset.kind === "outlook") continue;
      if (!sourcesOf(dataset).includes(outcome.file)) continue;
      events.push({
        type: "data.published",
        data: {
          dataset: dataset.id,
          file: outcome.file,
          [`${unit}_added`]: added,
          [`${unit}_revised`]: revised,
          ...(outcome.hoursChanged === undefined
            ? {}
            : { first_hour: outcome.hoursChanged.first, last_hour: outcome.hoursChanged.last }),
          newest_hour: state.newest ?? null,
          ingested_at: state.ingested ?? null,
          url: recordsUrl(dataset, state.newest, outcome.hoursChanged),
        },
      });
    }
  }
  const forecast = datasets.find((d) => d.kind === "issues" && sourcesOf(d).includes(outcome.file));
  if (outcome.result === "issued" && outcome.issue !== undefined && forecast !== undefined) {
    const { issuedAt, first, last, hours } = outcome.issue;
    events.push({
      type: "forecast.issued",
      data: {
        dataset: forecast.id,
        issued_at: issuedAt,
        first_hour: first,
        last_hour: last,
        hours,
        url: `${forecast.path}?start=${first.slice(0, 10)}&end=${day(Date.parse(first) + 7 * DAY_MS)}`,
      },
    });
  }
  return events;
}

/**
 * The event of a file whose state of publication (`source-freshness.ts`) is not the one the last
 * pull judged, `said`: `source.late` or `source.stopped`, or `source.resumed` when it is current
 * again. None on the first judgement.
 */
export function sourceEvent(said: SourceState | undefined, fresh: SourceFreshness): WebhookEvent | undefined {
  if (said === undefined || said === fresh.state) return undefined;
  return {
    type: fresh.state === "current" ? "source.resumed" : `source.${fresh.state}`,
    data: {
      file: fresh.file,
      from: said,
      to: fresh.state,
      cadence_hours: fresh.cadence_hours,
      last_publication: fresh.last_publication,
      newest_hour: fresh.newest_hour,
      ...(fresh.gone_since === undefined ? {} : { gone_since: fresh.gone_since }),
      url: "/healthz",
    },
  };
}

/** The events of a hand ingest (`npm run ingest`) that changed hours: `data.published` per hourly dataset. */
export function ingestEvents(
  changed: {
    hoursAdded: number;
    hoursRevised: number;
    newestObserved: number | null;
    firstChanged: number | null;
    lastChanged: number | null;
  },
  datasets: readonly DatasetDefinition[] = DATASETS,
): WebhookEvent[] {
  if (changed.hoursAdded + changed.hoursRevised === 0) return [];
  const newest = changed.newestObserved === null ? undefined : new Date(changed.newestObserved).toISOString();
  const span =
    changed.firstChanged === null || changed.lastChanged === null
      ? undefined
      : {
          first: new Date(changed.firstChanged).toISOString(),
          last: new Date(changed.lastChanged).toISOString(),
        };
  return datasets.filter(isHourly).map((d) => ({
    type: "data.published",
    data: {
      dataset: d.id,
      file: "npm run ingest",
      hours_added: changed.hoursAdded,
      hours_revised: changed.hoursRevised,
      ...(span === undefined ? {} : { first_hour: span.first, last_hour: span.last }),
      newest_hour: newest ?? null,
      url: recordsUrl(d, newest, span),
    },
  }));
}
