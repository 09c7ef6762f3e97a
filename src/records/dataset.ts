/** What every dataset endpoint has in common: its identity, its fields and how it computes records. */
import type * as v from "valibot";
import { DAY_MS, HOUR_MS } from "../time.ts";
import { type Period, PERIODS, periodRange, ZONE_OFFSET_MS, type Zone } from "../periods.ts";
import type { ReadingStore } from "../store/reading-store.ts";

/** The two resolutions a range can be asked for. */
export const INTERVALS = ["1h", "1d"] as const;
export type Interval = (typeof INTERVALS)[number];

/**
 * How records of a day or longer aggregate their hours: `mean` (the dataset's daily fields, the
 * default), or every numeric hourly field's `min`, `max` or `sum` (docs/api.md: "Aggregates").
 */
export const AGGREGATES = ["mean", "min", "max", "sum"] as const;
export type Aggregate = (typeof AGGREGATES)[number];

/** A served record: `ts` or `date` first, then the dataset's fields (grid stress nests `components`). */
export type DataRecord = Record<string, string | number | null | Readonly<Record<string, number | null>>>;

/** A query parameter: the schema that validates its raw string, and its documentation. */
export interface QueryParameter {
  readonly schema: v.GenericSchema<string, unknown>;
  /** What the value may be, for the error detail. */
  readonly expected: string;
  readonly default: string | number | boolean | undefined;
  /** For the OpenAPI document. */
  readonly description: string;
  readonly required?: boolean;
  readonly example?: string;
}

/** A query parameter of one dataset besides the range: its schema turns the raw string into a value. */
export type DatasetParameter = QueryParameter;

/** What a served field is: the source of the OpenAPI schemas, `/api/v1/datasets` and CSV columns. */
export interface FieldDoc {
  readonly name: string;
  /** A short name for people, as the explorer's labels and legends write it ("Coal", "Residual demand"). */
  readonly label?: string;
  readonly type: "string" | "number" | "integer" | "object";
  readonly description: string;
  /** The stored source columns (snake_case) an hourly value is read from; the dataset's sources follow. */
  readonly columns?: readonly string[];
  /** `MW`, `%`, `h`, `index` or `probability` (0 to 1); absent for labels and times. */
  readonly unit?: string;
  /** Whether the value may be null. */
  readonly nullable?: boolean;
  readonly format?: "date-time" | "date";
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  /** Present only on request (grid stress `components`). */
  readonly optional?: boolean;
  /** The members of an object field. */
  readonly properties?: readonly FieldDoc[];
  /** The aggregates an hourly field allows over a day or longer (`agg`). */
  readonly aggregates?: readonly Aggregate[];
}

/** The record time field of each interval. */
export const TIME_FIELDS: Readonly<Record<Interval, FieldDoc>> = {
  "1h": {
    name: "ts",
    label: "Hour",
    type: "string",
    format: "date-time",
    description: "The hour beginning, UTC, YYYY-MM-DDThh:mm:ss+00:00.",
  },
  "1d": {
    name: "date",
    label: "Day",
    type: "string",
    format: "date",
    description: "The UTC calendar day, YYYY-MM-DD.",
  },
};

/** A field's description without its name (the key of its dataset table). */
export type FieldText = Omit<FieldDoc, "name">;

// What a field's description holds, in the order the catalog and OpenAPI write it.
const DOC_KEYS = [
  "label",
  "type",
  "description",
  "unit",
  "nullable",
  "format",
  "enum",
  "minimum",
  "maximum",
  "optional",
  "properties",
  "aggregates",
  "columns",
] as const;

/** The served description of a table entry: its name and its description, not its computation. */
export function fieldDoc(name: string, text: FieldText): FieldDoc {
  const doc: Record<string, unknown> = { name };
  for (const key of DOC_KEYS) if (text[key] !== undefined) doc[key] = text[key];
  return doc as unknown as FieldDoc;
}

/** The `hours` field of daily records. */
export const HOURS_FIELD: FieldText = {
  label: "Hours",
  type: "integer",
  minimum: 0,
  maximum: 24,
  description: "How many hourly records the day aggregates: 24 for a complete day.",
};

/**
 * `meta` of a dataset read from the source's own columns: hourly values are computed from the
 * source, daily ones are aggregations of those hours (docs/api.md, "meta").
 */
export function fromSourceMeta(interval: Interval): { derivation_method: string } {
  return { derivation_method: interval === "1h" ? "computed_from_source" : "aggregation_from_1h" };
}

/** A nullable number in MW (its label and meaning follow it). */
export const MW = { type: "number", unit: "MW", nullable: true } as const;

/** A nullable MW field: its label and its meaning. */
export function mw(label: string, description: string): FieldText {
  return { label, ...MW, description };
}

/** A nullable percentage (its label and meaning follow it). */
export const PERCENT = { type: "number", unit: "%", nullable: true } as const;

/** A nullable percentage field: its label and its meaning. */
export function percent(label: string, description: string): FieldText {
  return { label, ...PERCENT, description };
}

/** A validated request for a range of a dataset. */
export interface RangeRequest {
  /** Requested instants, UTC ms; the range is [start, end). */
  readonly start: number;
  readonly end: number;
  readonly interval: Interval;
  /** Dataset-specific options, already validated (e.g. grid stress `components`). */
  readonly options: Readonly<Record<string, unknown>>;
  /** At interval 1d: the period each record aggregates (`1d` by default). */
  readonly period?: Period;
  /** The zone of stamps and period boundaries (`UTC` by default). */
  readonly zone?: Zone;
  /** At interval 1d: how the hours aggregate (`mean` by default). */
  readonly agg?: Aggregate;
}

/** The instants the records of a range cover: the range at 1h, its whole periods at 1d. */
export function coveredRange(range: RangeRequest): { from: number; to: number } {
  if (range.interval === "1h") return { from: range.start, to: range.end };
  return periodRange(range.start, range.end, range.period ?? "1d", ZONE_OFFSET_MS[range.zone ?? "UTC"]);
}

/** What the fields of a response depend on. */
export type FieldsRequest = Pick<RangeRequest, "interval" | "options" | "period" | "zone" | "agg">;

/** What the catalog, the OpenAPI document, the explorer and MCP say of any dataset, of any kind. */
export interface DatasetDoc {
  /** `meta.dataset`. */
  readonly id: string;
  /** Its name for people, as the explorer's list writes it ("Generation mix"). */
  readonly title: string;
  /** How its records are read (`RecordKind`). */
  readonly kind: RecordKind;
  readonly path: string;
  /** The limiter scope that counts its requests. */
  readonly scope: string;
  /** One sentence on what it serves. */
  readonly description: string;
  /** Markdown a reader of the API reference needs beyond that sentence (a derived dataset's formula). */
  readonly reference?: string;
  /** The fields of its records at each interval, in served order, time field first. */
  readonly fields: Readonly<Record<Interval, readonly FieldDoc[]>>;
  /**
   * The fields one response carries, where its options, period or aggregate choose among them
   * (grid stress's `version`, `agg=max`); by default `fields`. The CSV header is written from them.
   */
  servedFields?(request: FieldsRequest): readonly FieldDoc[];
  /** `meta.derived` at each interval. */
  readonly derived: Readonly<Record<Interval, boolean>>;
  /** The intervals it serves, when not every interval of `range-query.ts`; the first is the default. */
  readonly intervals?: readonly ("1h" | Period)[];
  /** The range settings it takes besides start, end and interval; by default all three. */
  readonly takes?: readonly RangeSetting[];
  /** The formats it answers in; by default all three. */
  readonly formats?: readonly ("json" | "csv" | "parquet")[];
  /** Query parameters besides `start`, `end`, `interval`, `format` and `as_of`. */
  readonly parameters?: Readonly<Record<string, DatasetParameter>>;
  /** `meta` fields after `derived` (e.g. `derivation_method`), for an interval and the request's options. */
  meta(interval: Interval, options?: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>;
  /** `meta` fields whose value depends on the request: the values each may take (for OpenAPI). */
  readonly metaEnums?: Readonly<Record<string, readonly string[]>>;
  /**
   * The `meta` fields after `start` and `end` that say how current the data is, as JSON Schemas;
   * by default `last_available` and `data_delay` (the reading store's).
   */
  readonly statusMeta?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Why it refuses the settings and formats it does not take, for the 400 that names them. */
  readonly declines?: string;
  /** True when its records are not asked for by range (no start or end): the outlook's are its issue's. */
  readonly unranged?: boolean;
  /** A shorter longest span than the interval's, for some requests (the forecast's `issues=all`). */
  readonly spanLimit?: SpanLimit;
  /** How the explorer draws it. */
  readonly chart: ChartSpec;
  /** An MCP tool of its own (input: its parameters); `note` is said before each answer. */
  readonly tool?: { readonly name: string; readonly description: string; readonly note?: string };
}

/**
 * How a dataset's records are read: from the stored hours of the portal's columns (`readings`),
 * computed from other datasets' hours (`computed`, grid stress), from the kept revisions of files
 * of weeks or months (`periods`), from the kept issues of a forecast (`issues`), or issued from
 * the store as it stood at an instant (`outlook`).
 */
export type RecordKind = "readings" | "computed" | "periods" | "issues" | "outlook";

/** A longest span that applies to some requests only. */
export interface SpanLimit {
  readonly days: number;
  /** Whether the request is one it applies to. */
  readonly applies: (interval: Interval, options: Readonly<Record<string, unknown>>) => boolean;
  /** The requests it applies to and why, as the 400 says it ("with issues=all at interval 1h (...)"). */
  readonly which: string;
}

/** A band shaded behind a chart's lines: a value range with a name. */
export interface ChartBand {
  readonly name: string;
  readonly from: number;
  readonly to: number;
}

/** How the explorer draws a dataset (docs/dashboard.md: "The explorer"). */
export interface ChartSpec {
  /**
   * `lines`: one chart of lines per unit; `stacked`: the fields of `order` as areas stacked bottom
   * first; `issues`: a forecast's issues each a line over the same hours (when several are shown).
   */
  readonly kind: "lines" | "stacked" | "issues";
  /** The stacked fields (by their hourly names), bottom first. */
  readonly order?: readonly string[];
  /** The hourly field drawn as hour of day by day, where its pattern over the day is the story. */
  readonly heatmap?: string;
  /** Bands shaded behind the lines of one unit (grid stress's). */
  readonly bands?: { readonly unit: string; readonly bands: readonly ChartBand[] };
}

/** The settings a range may carry besides start, end and interval. */
export type RangeSetting = "tz" | "agg" | "columns";

/** Whether a dataset takes a range setting (`tz`, `agg`, `columns`). */
export function takes(dataset: DatasetDoc, setting: RangeSetting): boolean {
  return (dataset.takes ?? ["tz", "agg", "columns"]).includes(setting);
}

/** The intervals a dataset serves, the default first: its own, else 1h and every period. */
export function intervalsOf(dataset: DatasetDoc): readonly ("1h" | Period)[] {
  return dataset.intervals ?? ["1h", ...PERIODS];
}

/** The formats a dataset answers in. */
export function formatsOf(dataset: DatasetDoc): readonly ("json" | "csv" | "parquet")[] {
  return dataset.formats ?? ["json", "csv", "parquet"];
}

/** The fields a response to `request` carries: the dataset's choice, else those of its interval. */
export function servedFieldsOf(dataset: DatasetDoc, request: FieldsRequest): readonly FieldDoc[] {
  return dataset.servedFields?.(request) ?? dataset.fields[request.interval];
}

/** A dataset the service serves at one path. */
export interface Dataset extends DatasetDoc {
  /** Days before a range whose readings the records also depend on (for ETags). */
  readonly lookbackDays: number;
  /** The records of a range, in ascending time order. */
  records(store: ReadingStore, request: RangeRequest): DataRecord[];
}

/**
 * The first day (UTC ms) whose readings the records from `from` on may depend on: the day of the
 * hour before `from`, less the dataset's look-back. The record code sees no day before it, and
 * ETags and the record cache hash every day from it on, so the three cannot disagree.
 */
export function firstDayRead(dataset: Pick<Dataset, "lookbackDays">, from: number): number {
  return Math.floor((from - dataset.lookbackDays * DAY_MS - HOUR_MS) / DAY_MS) * DAY_MS;
}

/** The value of a field for one hour, before rounding. */
export type HourValue = number | string | null | Readonly<Record<string, number | null>>;
