/**
 * The daily rules of a dataset table, and the one Arquero rollup they become: each served daily
 * field is computed from the day's hourly values by its rule.
 */
import * as aq from "arquero";
import type { DataRecord, FieldText, HourValue } from "./dataset.ts";
import { round3 } from "./source-fields.ts";

/**
 * How a daily field is computed from the day's hours, by the name of an hourly field (or an
 * unserved hourly input): the hour count, a mean, maximum, minimum or sum, the hours whose value
 * equals a label or exceeds a bound, or an energy-weighted share: `scale * sum(numerator) /
 * sum(denominator)` over the hours that have both, null when none has or the denominator sums to
 * 0. Nulls are skipped, never counted as 0: a field with no value in the day is null.
 */
export type DailyRule<F extends string> =
  | { readonly count: true }
  | { readonly mean: F }
  | { readonly max: F }
  | { readonly min: F }
  | { readonly sum: F }
  | { readonly countAbove: F; readonly above: number }
  | { readonly countOf: F; readonly equals: string }
  | { readonly share: { readonly numerator: F; readonly denominator: F; readonly scale: number } };

/** A served daily field: its description and its rule. */
export type DailyField<F extends string> = FieldText & { readonly from: DailyRule<F> };

/** A day's row out of the rollup. */
export type Rollup = Record<string, unknown>;

/** What the daily rules make of the day's hours: the rollup, its per-hour columns, and each field's finish. */
interface Plan<H> {
  readonly rollup: Rollup;
  readonly columns: Map<string, (hour: H) => HourValue>;
  readonly finishers: [string, (day: Rollup) => number | null][];
}

// A sum, or a count of the hours above a bound, over the hours that have a value; null when none has.
function planSummed<H>(
  plan: Plan<H>,
  name: string,
  rule: { readonly sum: string } | { readonly countAbove: string; readonly above: number },
  column: (name: string) => (hour: H) => HourValue,
): void {
  const of = column("sum" in rule ? rule.sum : rule.countAbove);
  const value =
    "sum" in rule
      ? of
      : (h: H) => {
          const v = of(h);
          return v === null ? null : (v as number) > rule.above ? 1 : 0;
        };
  plan.columns.set(`${name}:v`, value);
  Object.assign(plan.rollup, {
    [`${name}:s`]: aq.op.sum(`${name}:v`),
    [`${name}:c`]: aq.op.valid(`${name}:v`),
  });
  plan.finishers.push([
    name,
    (day) => ((day[`${name}:c`] as number) > 0 ? round3(day[`${name}:s`] as number) : null),
  ]);
}

// `scale * sum(numerator) / sum(denominator)` over the hours that have both.
function planShare<H>(
  plan: Plan<H>,
  name: string,
  share: { readonly numerator: string; readonly denominator: string; readonly scale: number },
  column: (name: string) => (hour: H) => HourValue,
): void {
  const [num, den] = [column(share.numerator), column(share.denominator)];
  const both = (h: H) => num(h) !== null && den(h) !== null;
  plan.columns.set(`${name}:n`, (h) => (both(h) ? num(h) : null));
  plan.columns.set(`${name}:d`, (h) => (both(h) ? den(h) : null));
  Object.assign(plan.rollup, {
    [`${name}:n`]: aq.op.sum(`${name}:n`),
    [`${name}:d`]: aq.op.sum(`${name}:d`),
    [`${name}:c`]: aq.op.valid(`${name}:n`),
  });
  plan.finishers.push([
    name,
    (day) => {
      const [n, d, c] = [day[`${name}:n`], day[`${name}:d`], day[`${name}:c`]] as number[];
      return round3(c! > 0 && d !== 0 ? (share.scale * n!) / d! : null);
    },
  ]);
}

/** The Arquero rollup of the daily rules, the per-hour columns it reads, and the record it makes. */
export function dailyPlan<H>(
  daily: Readonly<Record<string, DailyField<string>>>,
  column: (name: string) => (hour: H) => HourValue,
): { rollup: Rollup; columns: [string, (hour: H) => HourValue][]; finish: (day: Rollup) => DataRecord } {
  const plan: Plan<H> = { rollup: {}, columns: new Map(), finishers: [] };
  const { rollup, columns, finishers } = plan;
  for (const [name, { from: rule }] of Object.entries(daily)) {
    if ("count" in rule) {
      rollup[name] = aq.op.count();
      finishers.push([name, (day) => day[name] as number]);
    } else if ("countOf" in rule) {
      const of = column(rule.countOf);
      columns.set(name, (h) => (of(h) === rule.equals ? 1 : 0));
      rollup[name] = aq.op.sum(name);
      finishers.push([name, (day) => day[name] as number]);
    } else if ("sum" in rule || "countAbove" in rule) {
      planSummed(plan, name, rule, column);
    } else if ("share" in rule) {
      planShare(plan, name, rule.share, column);
    } else {
      const [op, of] =
        "mean" in rule
          ? (["mean", rule.mean] as const)
          : "max" in rule
            ? (["max", rule.max] as const)
            : (["min", rule.min] as const);
      columns.set(of, column(of));
      rollup[name] = aq.op[op](of);
      finishers.push([name, (day) => round3(day[name] as number | null | undefined)]);
    }
  }
  const finish = (day: Rollup): DataRecord => {
    const record: DataRecord = { date: day.date as string };
    for (const [name, value] of finishers) record[name] = value(day);
    return record;
  };
  return { rollup, columns: [...columns], finish };
}
