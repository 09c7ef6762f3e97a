/**
 * What `agg` makes of a dataset's hourly fields over a day or longer (docs/api.md: "Aggregates").
 * `mean` is the dataset's own daily fields (`avg_` means, energy-weighted shares, counts). `min`,
 * `max` and `sum` give `<agg>_<field>` for each numeric hourly field that allows it, beside
 * `hours`: a power in MW sums to an energy in MWh; a share, a factor, an index or a level has no
 * sum (adding up percentages or reservoir hours means nothing), and a label or an object has no
 * aggregate at all.
 */
import type { Period, Zone } from "../periods.ts";
import type { DailyField } from "./daily-plan.ts";
import { type Aggregate, type FieldDoc, fieldDoc, type FieldText, HOURS_FIELD } from "./dataset.ts";

/** The aggregates a field allows: its own list, else by its type and unit. */
export function aggregatesOf(
  field: FieldText & { readonly aggregates?: readonly Aggregate[] },
): readonly Aggregate[] {
  if (field.aggregates !== undefined) return field.aggregates;
  if (field.type !== "number" && field.type !== "integer") return [];
  return field.unit === "MW" ? ["mean", "min", "max", "sum"] : ["mean", "min", "max"];
}

// How a label says each aggregate: "Coal, most".
const LABEL_WORDS: Readonly<Record<Exclude<Aggregate, "mean">, string>> = {
  min: "least",
  max: "most",
  sum: "sum",
};

const WORDS: Readonly<Record<Exclude<Aggregate, "mean">, string>> = {
  min: "Smallest hourly value in the period of:",
  max: "Largest hourly value in the period of:",
  sum: "Sum over the period's hours (energy: MWh for a field in MW) of:",
};

/** The served field `agg` makes of an hourly field, named `<agg>_<name>`. */
export function aggregateName(agg: Aggregate, name: string): string {
  return `${agg}_${name}`;
}

/**
 * The period fields of `agg` (min, max or sum): `hours`, then `<agg>_<field>` for each hourly field
 * that allows it, in the hourly fields' order.
 */
export function aggregateFields(
  hourly: readonly (readonly [string, FieldText])[],
  agg: Exclude<Aggregate, "mean">,
): Record<string, DailyField<string>> {
  const fields: Record<string, DailyField<string>> = { hours: { ...HOURS_FIELD, from: { count: true } } };
  for (const [name, field] of hourly) {
    if (!aggregatesOf(field).includes(agg)) continue;
    const unit = agg === "sum" && field.unit === "MW" ? "MWh" : field.unit;
    fields[aggregateName(agg, name)] = {
      label: `${field.label ?? name}, ${LABEL_WORDS[agg]}`,
      type: "number",
      ...(unit === undefined ? {} : { unit }),
      nullable: true,
      description: `${WORDS[agg]} ${field.description}`,
      from: agg === "min" ? { min: name } : agg === "max" ? { max: name } : { sum: name },
    };
  }
  return fields;
}

const PERIOD_WORDS: Readonly<Record<Period, string>> = {
  "1d": "day",
  "1w": "ISO week (Monday to Sunday); its Monday",
  "1mo": "calendar month; its first day",
  "1y": "calendar year; its 1 January",
  fy: "Eskom financial year (April to March); its 1 April",
};

/** The `date` field of records of a period, in a zone. */
export function periodDateField(period: Period, zone: Zone): FieldDoc {
  const where = zone === "UTC" ? "UTC" : "South African (SAST, UTC+02:00)";
  return {
    name: "date",
    label: "Period",
    type: "string",
    format: "date",
    description: `The ${where} ${PERIOD_WORDS[period]}, YYYY-MM-DD.`,
  };
}

/** The most hours a period holds. */
export const PERIOD_MAX_HOURS: Readonly<Record<Period, number>> = {
  "1d": 24,
  "1w": 168,
  "1mo": 744,
  "1y": 8784,
  fy: 8784,
};

/** The `hours` field of records of a period: how many hourly records it aggregates. */
export function periodHoursField(period: Period): FieldDoc {
  if (period === "1d") return { name: "hours", ...HOURS_FIELD };
  return {
    name: "hours",
    ...HOURS_FIELD,
    maximum: PERIOD_MAX_HOURS[period],
    description: "How many hourly records the period aggregates; a complete period has one per hour.",
  };
}

/**
 * A daily count of hours (a band's hours, the hours with load reduction) as a longer period's
 * field: its bound is the period's hours, and it speaks of the period.
 */
export function periodCountField(name: string, text: FieldText, period: Period): FieldDoc {
  if (period === "1d" || text.type !== "integer" || text.maximum !== PERIOD_MAX_HOURS["1d"])
    return fieldDoc(name, text);
  const description = text.description
    .replace(/\bthe day's\b/g, "the period's")
    .replace(/\bof the day\b/g, "of the period");
  return fieldDoc(name, { ...text, maximum: PERIOD_MAX_HOURS[period], description });
}
