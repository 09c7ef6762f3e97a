/**
 * `grid.availability_weekly` and `grid.availability_monthly`: the fleet's availability as the
 * portal publishes it, per week (Monday to Sunday, SAST) and per calendar month (docs/api.md:
 * "Weekly and monthly availability"). Every value is the file's own, as published (not rounded),
 * for its period as the newest download up to `as_of` gave it. They are never computed from the
 * hourly `grid.availability`, nor put into it: the two are different measures of the same fleet.
 */
import { ZONE_OFFSET_MS, type Zone } from "../periods.ts";
import { type PeriodForm, periodForm } from "../source/period-forms.ts";
import type { KeptPeriod } from "../store/period-revisions.ts";
import type { DataRecord, DatasetDoc, FieldDoc } from "./dataset.ts";

/** A dataset of published periods: its documentation and the files it is read from. */
export interface PeriodDataset extends DatasetDoc {
  /** The one interval it serves: the files' grain. */
  readonly interval: "1w" | "1mo";
  readonly files: readonly PeriodForm[];
}

const percent = (description: string): Omit<FieldDoc, "name"> => ({
  type: "number",
  unit: "%",
  nullable: true,
  minimum: 0,
  maximum: 100,
  description,
});

const field = (name: string, text: Omit<FieldDoc, "name">): FieldDoc => ({ name, ...text });

const SHARES = (file: string, prefix: string): FieldDoc[] => [
  field(
    "eaf_pct",
    percent(
      `Energy availability factor: the share of the fleet's capacity that was available (\`${prefix}EAF\`, ${file}).`,
    ),
  ),
  field(
    "pclf_pct",
    percent(`Planned capability loss factor: the share out for maintenance (\`${prefix}PCLF\`).`),
  ),
  field(
    "uclf_pct",
    percent(`Unplanned capability loss factor: the share lost to breakdowns (\`${prefix}UCLF\`).`),
  ),
  field(
    "oclf_pct",
    percent(
      `Other capability loss factor: the share lost to causes outside Eskom's control (\`${prefix}OCLF\`).`,
    ),
  ),
];

const mwField = (name: string, description: string) =>
  field(name, { type: "number", unit: "MW", nullable: true, description });

const WEEKLY_BREAKDOWN = "Weekly_Eskom_generation_capacity_breakdown.csv";
const WEEKLY_OUTAGES = "Weekly_unplanned_outages.csv";
const MONTHLY_BREAKDOWN = "Monthly_Eskom_generation_capacity_breakdown.csv";

const STATUS_META = {
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

const AS_PUBLISHED = () => ({ derivation_method: "as_published" });

const RELATION =
  "The hourly `grid.availability` gives outages in MW from the data-request export, and its `energy_availability_factor_pct` is computed by this service from them; the figures here are Eskom's own percentages over the period. They measure the same fleet, but are published apart and are never mixed in one field.";

// What both datasets share: as published, one interval, tz and columns, the periods' status.
function periodDataset(
  own: Pick<PeriodDataset, "id" | "path" | "description" | "reference" | "interval" | "files">,
  fields: readonly FieldDoc[],
): PeriodDataset {
  return {
    ...own,
    scope: "normalized_data",
    intervals: [own.interval],
    takes: ["tz", "columns"],
    derived: { "1h": false, "1d": false },
    meta: AS_PUBLISHED,
    statusMeta: STATUS_META,
    fields: { "1h": [], "1d": fields },
  };
}

/** `grid.availability_weekly`. */
export const availabilityWeekly = periodDataset(
  {
    id: "grid.availability_weekly",
    path: "/api/v1/grid/availability/weekly",
    description:
      "The fleet's availability per week (Monday to Sunday, SAST) as the portal publishes it: energy availability factor, planned, unplanned and other capability loss factors, and the least, mean and most unplanned plus other outage in MW.",
    reference: [
      `Read from the portal's \`${WEEKLY_BREAKDOWN}\` (the percentages) and \`${WEEKLY_OUTAGES}\` (the MW), each holding the weeks of Eskom's financial year to date; every week a download ever held is kept, with every revision (\`as_of\`). A week one file does not give has nulls in its fields.`,
      RELATION,
    ].join("\n\n"),
    interval: "1w",
    files: [periodForm(WEEKLY_BREAKDOWN), periodForm(WEEKLY_OUTAGES)],
  },
  [
    {
      name: "date",
      type: "string",
      format: "date",
      description:
        "The week's Monday, YYYY-MM-DD, as Eskom dates it: the week runs from 00:00 SAST on it for 7 days.",
    },
    ...SHARES(WEEKLY_BREAKDOWN, "Weekly "),
    field("financial_year", {
      type: "string",
      nullable: true,
      description: "Eskom's financial year the week is counted in, as published (`Fin_Year`, e.g. 2025-26).",
    }),
    mwField(
      "min_uclf_oclf_mw",
      `The least hourly unplanned plus other capability loss of the week (\`Min of UCLF+OCLF\`, ${WEEKLY_OUTAGES}).`,
    ),
    mwField(
      "avg_uclf_oclf_mw",
      "The mean hourly unplanned plus other capability loss (`Average of UCLF+OCLF`).",
    ),
    mwField("max_uclf_oclf_mw", "The most hourly unplanned plus other capability loss (`Max of UCLF+OCLF`)."),
  ],
);

/** `grid.availability_monthly`. */
export const availabilityMonthly = periodDataset(
  {
    id: "grid.availability_monthly",
    path: "/api/v1/grid/availability/monthly",
    description:
      "The fleet's availability per calendar month (SAST) as the portal publishes it: energy availability factor and planned, unplanned and other capability loss factors.",
    reference: [
      `Read from the portal's \`${MONTHLY_BREAKDOWN}\`; the empty row it ends with (the month to come) is no value. Every month a download ever held is kept, with every revision (\`as_of\`).`,
      RELATION,
    ].join("\n\n"),
    interval: "1mo",
    files: [periodForm(MONTHLY_BREAKDOWN)],
  },
  [
    {
      name: "date",
      type: "string",
      format: "date",
      description: "The month's first day, YYYY-MM-DD: the month runs from 00:00 SAST on it.",
    },
    ...SHARES(MONTHLY_BREAKDOWN, ""),
  ],
);

/** Every dataset of published periods. */
export const PERIOD_DATASETS: readonly PeriodDataset[] = [availabilityWeekly, availabilityMonthly];

/**
 * The records of the periods whose first day, at 00:00 in `zone`, lies in [from, to): one per
 * period any of the files gives, its fields from each file's values (null where a file has none).
 */
export function periodRecords(
  dataset: PeriodDataset,
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
