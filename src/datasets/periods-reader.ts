/**
 * How the datasets of published periods (`periods`: weeks, months) are read: from the kept
 * revisions of their files (`store/period-revisions.ts`), as the newest download up to `as_of`
 * (or now) gave each period. A dataset read from several files has one record per period any of
 * them gives, each field from the file that has it (null where none has). Generated sample
 * figures are served only beside a sample store, and never beside Eskom's.
 */
import { formatZoned, ZONE_OFFSET_MS, type Zone } from "../periods.ts";
import type { DataRecord, DatasetDoc } from "../records/dataset.ts";
import type { RecordReader, RecordView } from "../records/record-reader.ts";
import type { PeriodForm } from "../source/period-forms.ts";
import { type KeptPeriod, PeriodRevisions } from "../store/period-revisions.ts";

/** A dataset of published periods: one interval, the files' grain, and the files it is read from. */
export interface PeriodDataset extends DatasetDoc {
  readonly kind: "periods";
  readonly interval: "1w" | "1mo";
  readonly files: readonly PeriodForm[];
}

/** The `meta` fields that say how current an answer of periods is. */
export const PERIODS_STATUS_META = {
  last_available: {
    type: ["string", "null"],
    format: "date",
    description:
      "The first day of the newest period with a value (as of as_of, when given); null when there is none.",
  },
  last_received: {
    type: ["string", "null"],
    description: "When the newest download the answer reads was received (UTC); null when there is none.",
  },
};

/**
 * The records of the periods whose first day, at 00:00 in `zone`, lies in [from, to): one per
 * period any of the files gives, its fields from each file's values (null where a file has none).
 */
export function periodRecords(
  dataset: Pick<PeriodDataset, "fields">,
  kept: readonly (readonly KeptPeriod[])[],
  range: { from: number; to: number; zone: Zone },
): DataRecord[] {
  const offset = ZONE_OFFSET_MS[range.zone];
  const [, ...fields] = dataset.fields["1d"];
  const byPeriod = new Map<string, DataRecord>();
  for (const periods of kept) {
    for (const { period, values } of periods) {
      const begins = Date.parse(`${period}T00:00:00Z`) - offset;
      if (begins < range.from || begins >= range.to) continue;
      let record = byPeriod.get(period);
      if (record === undefined) {
        record = { date: period };
        for (const f of fields) record[f.name] = null;
        byPeriod.set(period, record);
      }
      for (const f of fields) if (f.name in values) record[f.name] = values[f.name] ?? null;
    }
  }
  return [...byPeriod.values()].sort((a, b) => ((a.date as string) < (b.date as string) ? -1 : 1));
}

/** The first day of the newest period with a value among `kept`, or null. */
export function newestPeriod(kept: readonly (readonly KeptPeriod[])[]): string | null {
  let newest: string | null = null;
  for (const periods of kept) {
    const last = periods.at(-1)?.period;
    if (last !== undefined && (newest === null || last > newest)) newest = last;
  }
  return newest;
}

/** The reader of a dataset of periods in `dir`; `sampleStore` says whether the readings are sample data. */
export function periodsReader(
  dataset: PeriodDataset,
  dir: string,
  options: { now: () => number; sampleStore: () => boolean },
): RecordReader {
  const revisions = dataset.files.map((form) => new PeriodRevisions(dir, form.name));
  return {
    snapshot() {
      const real = revisions.filter((r) => !r.sample && r.revisions().length > 0);
      const sample = real.length === 0 && options.sampleStore();
      const sources = sample ? revisions : revisions.filter((r) => !r.sample);
      const versions = sources.map((s) => s.version);
      const lastReceived = (at: number) => {
        const received = sources.map((s) => s.lastReceived(at)).filter((ms): ms is number => ms !== null);
        return received.length === 0 ? null : Math.max(...received);
      };
      return {
        version: JSON.stringify([versions, sample]),
        sample,
        modified: lastReceived(options.now()),
        tag: () => versions,
        asOfFloor: () => {
          const firsts = sources.map((s) => s.firstReceived()).filter((ms): ms is number => ms !== null);
          return {
            first: firsts.length === 0 ? null : Math.min(...firsts),
            what: "the first download of this dataset's files",
            none: "none is kept yet",
            since: "the first was received at",
          };
        },
        view(asOf): RecordView {
          const at = asOf ?? options.now();
          const kept = sources.map((s) => s.asOf(at));
          const last = lastReceived(at);
          return {
            records: (piece) =>
              periodRecords(dataset, kept, { from: piece.start, to: piece.end, zone: piece.zone ?? "UTC" }),
            status: (range) => ({
              last_available: newestPeriod(kept),
              last_received:
                last === null
                  ? null
                  : formatZoned(last, ZONE_OFFSET_MS[range.zone ?? "UTC"], last % 1000 !== 0),
            }),
            modified: last,
          };
        },
      };
    },
  };
}
