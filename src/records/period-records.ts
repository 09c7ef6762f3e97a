/**
 * Records of periods of a day or longer (a day, a week, a month, a year, a financial year, in UTC
 * or SAST), each aggregating its hours by one Arquero rollup: the dataset's daily rules for `mean`,
 * or the min, max or sum of each hourly field that allows it (`aggregates.ts`).
 */
import * as aq from "arquero";
import { localDay, type Period, periodStart } from "../periods.ts";
import { dayKey } from "../time.ts";
import { aggregateFields, periodCountField, periodDateField, periodHoursField } from "./aggregates.ts";
import { type DailyField, dailyPlan, type Rollup } from "./daily-plan.ts";
import {
  type Aggregate,
  type DataRecord,
  type FieldDoc,
  type FieldsRequest,
  type FieldText,
  type HourValue,
  type Interval,
} from "./dataset.ts";

/** What a period aggregator needs of its dataset table. */
export interface PeriodSource<H, S> {
  /** The table's daily fields: the `mean` aggregate. */
  readonly daily: Readonly<Record<string, DailyField<string>>>;
  /** The served hourly fields, in order. */
  readonly hourly: readonly (readonly [string, FieldText])[];
  /** The hourly value a rule reads, by field name. */
  readonly column: (name: string) => (hour: H) => HourValue;
  /** The inputs of every stored hour in [from, to). */
  readonly hours: (store: S, from: number, to: number) => { hour: number; inputs: H }[];
}

/** How one request aggregates: the period, its zone's offset, and the aggregate. */
export interface PeriodRequest {
  readonly period: Period;
  readonly offset: number;
  readonly agg: Aggregate;
}

/** The records and fields of a dataset's periods. */
export function createPeriodAggregator<H, S>(source: PeriodSource<H, S>) {
  // Each aggregate's fields and plan, made when first asked.
  const plans = new Map<
    Aggregate,
    { fields: Record<string, DailyField<string>>; plan: ReturnType<typeof dailyPlan<H>> }
  >();
  function planOf(agg: Aggregate) {
    let found = plans.get(agg);
    if (found === undefined) {
      const fields = agg === "mean" ? { ...source.daily } : aggregateFields(source.hourly, agg);
      found = { fields, plan: dailyPlan(fields, source.column) };
      plans.set(agg, found);
    }
    return found;
  }

  /** The records of the periods from `from` to `to` (period boundaries), in time order. */
  function records(store: S, from: number, to: number, { period, offset, agg }: PeriodRequest): DataRecord[] {
    const { plan } = planOf(agg);
    const keyOf =
      period === "1d" && offset === 0
        ? dayKey
        : (hour: number) => localDay(periodStart(hour, period, offset), offset);
    const rows = source.hours(store, from, to).map(({ hour, inputs }) => {
      const row: Record<string, HourValue> = { date: keyOf(hour) };
      for (const [name, value] of plan.columns) row[name] = value(inputs);
      return row;
    });
    if (rows.length === 0) return [];
    const grouped = aq.from(rows).groupby("date");
    const periods = grouped
      .rollup(plan.rollup as Parameters<typeof grouped.rollup>[0])
      .orderby("date")
      .objects() as Rollup[];
    return periods.map(plan.finish);
  }

  /** The fields a response carries: `fixed` (the table's own) for UTC days averaged, else the period's. */
  function servedFields(
    { interval, period = "1d", zone = "UTC", agg = "mean" }: FieldsRequest,
    fixed: Readonly<Record<Interval, readonly FieldDoc[]>>,
  ): readonly FieldDoc[] {
    if (interval === "1h") return fixed["1h"];
    if (period === "1d" && zone === "UTC" && agg === "mean") return fixed["1d"];
    return [
      periodDateField(period, zone),
      ...Object.entries<FieldText>(planOf(agg).fields).map(([name, text]) =>
        name === "hours" ? periodHoursField(period) : periodCountField(name, text, period),
      ),
    ];
  }

  planOf("mean"); // a daily rule that reads no hourly field fails when the dataset is defined
  return {
    records,
    servedFields,
    /** The served fields of an aggregate, after `date`. */
    fields: (agg: Aggregate): Readonly<Record<string, FieldText>> => planOf(agg).fields,
  };
}
