/**
 * The portal's files of weeks and months (docs/data.md: "Weekly and monthly availability"): known,
 * as the hourly files are, by their header's set of column names. Each names its period column,
 * the grain it is at (weeks beginning Monday, calendar months, both in SAST), the field each other
 * column is served as, and a check every row must pass to be certain:
 *
 * - the capacity breakdowns split the fleet's whole capacity: EAF + PCLF + UCLF + OCLF is 100%
 *   (Eskom's definition of the energy availability factor), within `SHARE_TOLERANCE_PCT`;
 * - the unplanned outages are the least, the mean and the most of a week's hourly UCLF + OCLF,
 *   so the least is no more than the mean and the mean no more than the most.
 */
import { normalizeColumnName } from "./columns.ts";

/** The grain of a file's periods. */
export type Grain = "week" | "month";

/** How a column's values are read and served. */
export type PeriodKind = "percent" | "mw" | "label";

/** One column of a period file besides its period. */
export interface PeriodColumn {
  /** The header's name, normalized to snake_case. */
  readonly header: string;
  /** The header's name as the portal writes it. */
  readonly raw: string;
  /** The served field. */
  readonly field: string;
  readonly kind: PeriodKind;
}

/** One file of periods. */
export interface PeriodForm {
  /** The file's name as the portal publishes it. */
  readonly name: string;
  readonly target: "periods";
  readonly grain: Grain;
  /** Every name of its header, normalized. */
  readonly header: readonly string[];
  /** The column that names the period. */
  readonly period: string;
  /** The columns served. */
  readonly columns: readonly PeriodColumn[];
  /** Columns read past: what they say is said by the period itself. */
  readonly unread: readonly string[];
  /** Why a row's values are not what their names say, or undefined when they are. */
  readonly rowCheck: (value: (field: string) => number) => string | undefined;
  /** What the row check verifies, for the refusal of a file most of whose rows fail it. */
  readonly rowCheckText: string;
}

/** How far EAF + PCLF + UCLF + OCLF may be from 100% (each is published rounded). */
export const SHARE_TOLERANCE_PCT = 0.5;

/** The highest MW an outage figure may take: the whole fleet (about 47 GW) with a margin. */
export const MAX_OUTAGE_MW = 60_000;

const column = (raw: string, field: string, kind: PeriodKind): PeriodColumn => ({
  header: normalizeColumnName(raw),
  raw,
  field,
  kind,
});

const SHARES = ["eaf_pct", "pclf_pct", "uclf_pct", "oclf_pct"];

// The four shares of a capacity breakdown, their header names after `prefix` ("Weekly ", "").
const shareColumns = (prefix: string) =>
  ["EAF", "PCLF", "UCLF", "OCLF"].map((name, i) => column(`${prefix}${name}`, SHARES[i]!, "percent"));

const sharesAddUp = (value: (field: string) => number): string | undefined => {
  const sum = SHARES.reduce((total, field) => total + value(field), 0);
  if (Number.isNaN(sum)) return "one of its EAF, PCLF, UCLF and OCLF is blank";
  return Math.abs(sum - 100) <= SHARE_TOLERANCE_PCT
    ? undefined
    : `its EAF, PCLF, UCLF and OCLF add up to ${Math.round(sum * 1000) / 1000}%, not 100%`;
};

const SHARES_TEXT = "EAF + PCLF + UCLF + OCLF must be 100%";

function form(
  name: string,
  grain: Grain,
  period: string,
  columns: PeriodColumn[],
  check: Pick<PeriodForm, "rowCheck" | "rowCheckText">,
  unread: string[] = [],
): PeriodForm {
  const header = [
    normalizeColumnName(period),
    ...columns.map((c) => c.header),
    ...unread.map(normalizeColumnName),
  ];
  return {
    name,
    target: "periods",
    grain,
    header,
    period: normalizeColumnName(period),
    columns,
    unread: unread.map(normalizeColumnName),
    ...check,
  };
}

/** Every file of periods this release reads. */
export const PERIOD_FORMS: readonly PeriodForm[] = [
  form(
    "Weekly_Eskom_generation_capacity_breakdown.csv",
    "week",
    "Week Start Date",
    [...shareColumns("Weekly "), column("Fin_Year", "financial_year", "label")],
    { rowCheck: sharesAddUp, rowCheckText: SHARES_TEXT },
    ["Year"],
  ),
  form(
    "Weekly_unplanned_outages.csv",
    "week",
    "Week_min_DateKey",
    [
      column("Min of UCLF+OCLF", "min_uclf_oclf_mw", "mw"),
      column("Average of UCLF+OCLF", "avg_uclf_oclf_mw", "mw"),
      column("Max of UCLF+OCLF", "max_uclf_oclf_mw", "mw"),
    ],
    {
      rowCheck: (value) => {
        const [min, avg, max] = ["min", "avg", "max"].map((m) => value(`${m}_uclf_oclf_mw`)) as [
          number,
          number,
          number,
        ];
        if ([min, avg, max].some(Number.isNaN)) return "one of its least, mean and most is blank";
        return min <= avg + 1e-6 && avg <= max + 1e-6
          ? undefined
          : `its least, mean and most (${min}, ${avg}, ${max} MW) are not in order`;
      },
      rowCheckText: "the least must be no more than the mean, and the mean no more than the most",
    },
  ),
  form("Monthly_Eskom_generation_capacity_breakdown.csv", "month", "YEAR_MONTH", shareColumns(""), {
    rowCheck: sharesAddUp,
    rowCheckText: SHARES_TEXT,
  }),
];

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((name) => b.includes(name));

/** The period file whose header has these names (normalized), or undefined. */
export function periodFormOfHeader(header: readonly string[]): PeriodForm | undefined {
  return PERIOD_FORMS.find((f) => sameSet(f.header, header));
}

/** The period file of that name; throws for a name this release does not know. */
export function periodForm(name: string): PeriodForm {
  const found = PERIOD_FORMS.find((f) => f.name === name);
  if (found === undefined) throw new RangeError(`No period file is named "${name}"`);
  return found;
}
