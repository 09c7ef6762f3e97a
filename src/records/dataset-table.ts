/**
 * A dataset as one declarative table. Per served field: its name (the table key), type, unit and
 * meaning; how its hourly value is computed from one hour's inputs; how it aggregates to a UTC day;
 * and how many days before an hour it reads. `defineDataset` turns the table into the `Dataset` the
 * HTTP layer serves: hourly records, daily records (one Arquero rollup built from the daily rules),
 * the field descriptions behind the catalog, OpenAPI and CSV columns, and the look-back that ETags
 * and the record cache depend on.
 *
 * The look-back is enforced, not only declared: the record code sees the store through a window
 * that holds no day before the range's first day less the look-back, so a field that reads further
 * back than its table says gets nothing there, and a test shows every dataset's records are equal
 * over the window and over the whole store.
 */
import type { Reading } from "../source/reading.ts";
import type { ReadingStore } from "../store/reading-store.ts";
import { dayKey, HOUR_MS } from "../time.ts";
import { formatZoned, periodRange, ZONE_OFFSET_MS } from "../periods.ts";
import type {
  Aggregate,
  ChartSpec,
  DataRecord,
  Dataset,
  DatasetDoc,
  DatasetParameter,
  FieldDoc,
  FieldsRequest,
  FieldText,
  Interval,
  RangeRequest,
} from "./dataset.ts";
import { createPeriodAggregator } from "./period-records.ts";
import { fieldDoc, firstDayRead, type HourValue, TIME_FIELDS } from "./dataset.ts";
import { round3 } from "./source-fields.ts";
import type { DailyField, DailyRule } from "./daily-plan.ts";

export type { DailyField, DailyRule } from "./daily-plan.ts";
import { forEachStoredHour } from "./stored-hours.ts";

/** What the record code may read: stored days and hours. */
export type HourSource = Pick<ReadingStore, "day" | "reading">;

/** A served hourly field: its description and how one hour's value is computed. */
export interface HourlyField<H> extends FieldText {
  /** The value of one hour; numbers are served rounded to 3 decimals (docs/api.md: "System state, `interval=1h`"). */
  readonly value: (hour: H) => HourValue;
  /** Whole days before an hour's own day that `value` reads (0 when it reads only that hour). */
  readonly lookbackDays?: number;
  /** Served only when this boolean option of the request is true. */
  readonly onlyWith?: string;
  /** The aggregates it allows over a day or longer, when not those of its type and unit (`aggregates.ts`). */
  readonly aggregates?: readonly Aggregate[];
}

/** Everything about one dataset. `H` is what one stored hour yields; `C` what a range prepares. */
export interface DatasetTable<H, C, HF extends string, XF extends string, DF extends string> {
  readonly id: string;
  /** Its name for people ("Generation mix"). */
  readonly title: string;
  /** `readings` when its fields read the stored columns; `computed` when derived from other datasets' hours. */
  readonly kind: "readings" | "computed";
  readonly path: string;
  /** The limiter scope that counts its requests. */
  readonly scope: string;
  readonly description: string;
  /** More than one sentence, when a reader needs it (docs/api.md: the dataset's section). */
  readonly reference?: string;
  readonly derived: Readonly<Record<Interval, boolean>>;
  readonly parameters?: Readonly<Record<string, DatasetParameter>>;
  readonly meta: (interval: Interval) => Readonly<Record<string, unknown>>;
  /** Work done once per range before its hours, over the days the look-back allows. */
  readonly prepare?: (source: HourSource, from: number, to: number) => C;
  /** One stored hour's inputs, or null when the reading holds none of the dataset's inputs. */
  readonly hour: (reading: Reading, at: HourAt<C>) => H | null;
  /** The served hourly fields, in served order after `ts`. */
  readonly hourly: { readonly [K in HF]: HourlyField<H> };
  /** Hourly values the daily rules read that are not served. */
  readonly unserved?: { readonly [K in XF]: (hour: H) => number | null };
  /** The served daily fields, in served order after `date`. */
  readonly daily: { readonly [K in DF]: DailyField<NoInfer<HF | XF>> };
  /** How the explorer draws it. */
  readonly chart: ChartSpec;
  /** An MCP tool of its own (`DatasetDoc.tool`). */
  readonly tool?: DatasetDoc["tool"];
}

/** Where an hour is: its instant, the reading of the hour before, and the range's prepared work. */
export interface HourAt<C> {
  readonly hour: number;
  previous(): Reading | undefined;
  readonly prepared: C;
}

/** A served hourly record of a table's dataset: a renamed field is a compile error where it is read. */
export type HourlyRecord<HF extends string> = { readonly ts: string } & { readonly [K in HF]: HourValue };
/** A served daily record. */
export type DailyRecord<DF extends string> = { readonly date: string } & {
  readonly [K in DF]: number | null;
};

/** A dataset defined by a table, with typed access to its records. */
export interface TableDataset<H, HF extends string, DF extends string> extends Dataset {
  readonly kind: "readings" | "computed";
  /** The table it was defined by. */
  readonly table: DatasetTable<H, never, HF, string, DF>;
  /** The unrounded inputs of every stored hour in [from, to) that holds any. */
  hours(store: HourSource, from: number, to: number): { hour: number; inputs: H }[];
  hourlyRecords(store: HourSource, request: RangeRequest): HourlyRecord<HF>[];
  dailyRecords(store: HourSource, from: number, to: number): DailyRecord<DF>[];
  /** The fields a response carries (`DatasetDoc.servedFields`), always given. */
  servedFields(request: FieldsRequest): readonly FieldDoc[];
}

/** The store seen from `first` (UTC ms of a day) on: nothing before it exists. */
export function windowFrom(store: HourSource, first: number): HourSource {
  const firstKey = dayKey(first);
  return {
    day: (key: string) => (key < firstKey ? undefined : store.day(key)),
    reading: (hour: number) => (hour < first ? undefined : store.reading(hour)),
  };
}

// A served value: numbers rounded, objects of numbers rounded member by member.
function served(value: HourValue): HourValue {
  if (typeof value === "number" || value === null) return round3(value);
  if (typeof value === "string") return value;
  const out: Record<string, number | null> = {};
  for (const name in value) out[name] = round3(value[name]);
  return out;
}

// The inputs of every stored hour in [from, to) that holds any, read through the look-back window.
function hourWalker<H, C>(table: DatasetTable<H, C, string, string, string>, lookbackDays: number) {
  return (store: HourSource, from: number, to: number): { hour: number; inputs: H }[] => {
    const source = windowFrom(store, firstDayRead({ lookbackDays }, from));
    const prepared = table.prepare?.(source, from, to) as C;
    const out: { hour: number; inputs: H }[] = [];
    let last: { hour: number; reading: Reading } | undefined;
    forEachStoredHour(source, from, to, (hour, reading) => {
      const before = last;
      const previous = () =>
        before?.hour === hour - HOUR_MS ? before.reading : source.reading(hour - HOUR_MS);
      last = { hour, reading };
      const inputs = table.hour(reading, { hour, previous, prepared });
      if (inputs !== null) out.push({ hour, inputs });
    });
    return out;
  };
}

// How a daily field is named by people when its table does not say: by its rule and the hourly
// field it reads ("Residual demand, mean").
const RULE_WORDS = { mean: "mean", max: "most", min: "least", sum: "sum" } as const;
function dailyLabel(rule: DailyRule<string>, labelOf: (name: string) => string): string | undefined {
  for (const word of ["mean", "max", "min", "sum"] as const)
    if (word in rule) return `${labelOf((rule as Record<string, string>)[word]!)}, ${RULE_WORDS[word]}`;
  if ("countAbove" in rule) return `Hours of ${labelOf(rule.countAbove).toLowerCase()}`;
  if ("countOf" in rule) return `Hours ${rule.equals}`;
  return undefined;
}

// The daily fields, each with a label: its own, or one its rule gives.
function labelled(
  daily: Readonly<Record<string, DailyField<string>>>,
  hourly: readonly [string, FieldText][],
): Record<string, DailyField<string>> {
  const labelOf = (name: string) => hourly.find(([n]) => n === name)?.[1].label ?? name;
  return Object.fromEntries(
    Object.entries(daily).map(([name, field]) => {
      const label = field.label ?? dailyLabel(field.from, labelOf);
      return [name, label === undefined ? field : { ...field, label }];
    }),
  );
}

// The documented fields of a table, in its order.
const docs = (fields: [string, FieldText][]) => fields.map(([name, text]) => fieldDoc(name, text));

// The hourly records of a range: each field's value, rounded, stamped in the request's zone.
function hourlyRecorder<H, HF extends string>(
  hourly: readonly [HF, HourlyField<H>][],
  hours: (store: HourSource, from: number, to: number) => { hour: number; inputs: H }[],
) {
  return (store: HourSource, { start, end, options, zone = "UTC" }: RangeRequest): HourlyRecord<HF>[] => {
    const fields = hourly.filter(([, f]) => f.onlyWith === undefined || options[f.onlyWith] === true);
    const offset = ZONE_OFFSET_MS[zone];
    const stamp = (hour: number) => formatZoned(hour, offset);
    return hours(store, start, end).map(({ hour, inputs }) => {
      const record: Record<string, HourValue> = { ts: stamp(hour) };
      for (const [name, field] of fields) record[name] = served(field.value(inputs));
      return record as HourlyRecord<HF>;
    });
  };
}

/** The dataset a table describes. */
export function defineDataset<H, C, HF extends string, XF extends string, DF extends string>(
  table: DatasetTable<H, C, HF, XF, DF>,
): TableDataset<H, HF, DF> {
  const hourly = Object.entries(table.hourly) as [HF, HourlyField<H>][];
  const unserved = Object.entries(table.unserved ?? {}) as [XF, (hour: H) => number | null][];
  const lookbackDays = Math.max(0, ...hourly.map(([, f]) => f.lookbackDays ?? 0));
  const column = (name: string) => {
    const found = hourly.find(([n]) => n === name)?.[1].value ?? unserved.find(([n]) => n === name)?.[1];
    if (found === undefined)
      throw new Error(`${table.id}: a daily rule reads ${name}, which is no hourly field`);
    return found;
  };

  const daily = labelled(table.daily, hourly);

  const hours = hourWalker(table, lookbackDays);

  const hourlyRecords = hourlyRecorder(hourly, hours);

  const periods = createPeriodAggregator({
    daily,
    hourly,
    column,
    hours,
  });

  function dailyRecords(store: HourSource, from: number, to: number): DailyRecord<DF>[] {
    return periods.records(store, from, to, { period: "1d", offset: 0, agg: "mean" }) as DailyRecord<DF>[];
  }

  const fields = {
    "1h": [TIME_FIELDS["1h"], ...docs(hourly)],
    "1d": [TIME_FIELDS["1d"], ...docs(Object.entries<FieldText>(daily))],
  };

  const servedFields = (request: FieldsRequest) => periods.servedFields(request, fields);

  return {
    id: table.id,
    title: table.title,
    kind: table.kind,
    path: table.path,
    scope: table.scope,
    description: table.description,
    ...(table.reference === undefined ? {} : { reference: table.reference }),
    derived: table.derived,
    parameters: table.parameters,
    meta: table.meta,
    chart: table.chart,
    ...(table.tool === undefined ? {} : { tool: table.tool }),
    lookbackDays,
    table: table as unknown as DatasetTable<H, never, HF, string, DF>,
    fields,
    servedFields,
    hours,
    hourlyRecords,
    dailyRecords,
    records(store: HourSource, request: RangeRequest): DataRecord[] {
      if (request.interval === "1h") return hourlyRecords(store, request);
      const { period = "1d", zone = "UTC", agg = "mean" } = request;
      const offset = ZONE_OFFSET_MS[zone];
      const { from, to } = periodRange(request.start, request.end, period, offset);
      return periods.records(store, from, to, { period, offset, agg });
    },
  };
}
