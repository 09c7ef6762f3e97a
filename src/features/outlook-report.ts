/**
 * The shape of the load-shedding outlook's walk-forward evaluation (`npm run evaluate-outlook`),
 * and its tables as Markdown, as docs/api.md shows them. The numbers live in `outlook-fit.ts`,
 * written by `npm run evaluate-outlook -- --write`.
 */
import { OUTLOOK_INPUTS } from "./outlook-inputs.ts";
import { LEAD_BUCKETS, type OutlookFit } from "./outlook-model.ts";

/** ROC AUC and Brier score of one forecast. */
export interface Score {
  readonly auc: number;
  readonly brier: number;
}

/** The outlook and its two baselines over one bucket of lead. */
export interface BucketScore {
  readonly bucket: string;
  readonly hours: number;
  /** Hours with manual load reduction above 0. */
  readonly shedHours: number;
  readonly outlook: Score;
  /** The newest known hour's state, carried forward. */
  readonly persistence: Score;
  /** The share of the 7 newest known days with load reduction at the same hour. */
  readonly sameHour: Score;
}

/** The outlook's days and their two baselines over one bucket of lead (a day's first hour's). */
export interface DayScore {
  readonly bucket: string;
  readonly days: number;
  /** Days with manual load reduction above 0 in some hour. */
  readonly shedDays: number;
  /** The served chance of any load reduction in the day; the baselines' made the same way. */
  readonly outlook: Score;
  readonly persistence: Score;
  readonly sameHour: Score;
  /** Root mean square error of the hours to expect, in hours per day. */
  readonly hoursError: { readonly outlook: number; readonly persistence: number; readonly sameHour: number };
}

/** One tenth of probability: its hours (or days), their mean probability and the share with load reduction. */
export interface Reliability {
  readonly tenth: number;
  readonly count: number;
  readonly predicted: number | null;
  readonly observed: number | null;
}

/** A bucket's scores and its reliability per tenth. */
export type BucketReliability = BucketScore & { readonly reliability: readonly Reliability[] };

/** The whole evaluation. */
export interface OutlookEvaluation {
  /** The calendar years (SAST) scored, each by a fit of the years before it. */
  readonly years: readonly number[];
  readonly buckets: readonly BucketReliability[];
  readonly perYear: readonly { readonly year: number; readonly buckets: readonly BucketReliability[] }[];
  /** The same by day, as `interval=1d` serves it. */
  readonly days: readonly (DayScore & { readonly reliability: readonly Reliability[] })[];
  readonly daysPerYear: readonly { readonly year: number; readonly buckets: readonly DayScore[] }[];
}

const f3 = (x: number | null) => (x === null || Number.isNaN(x) ? "n/a" : x.toFixed(3));
const count = (n: number) => n.toLocaleString("en-US");

type Scores = Pick<BucketScore, "outlook" | "persistence" | "sameHour">;

// Whether the outlook's AUC and its Brier score are each better than both baselines'.
const beatsBoth = (b: Scores) => ({
  auc: b.outlook.auc > b.persistence.auc && b.outlook.auc > b.sameHour.auc,
  brier: b.outlook.brier < b.persistence.brier && b.outlook.brier < b.sameHour.brier,
});

// A score, in bold where it beats both others.
function cells(b: Scores): string {
  const bold = (x: number, better: boolean) => (better ? `**${f3(x)}**` : f3(x));
  const best = beatsBoth(b);
  return (
    `${bold(b.outlook.auc, best.auc)} / ${bold(b.outlook.brier, best.brier)} | ` +
    `${f3(b.persistence.auc)} / ${f3(b.persistence.brier)} | ${f3(b.sameHour.auc)} / ${f3(b.sameHour.brier)}`
  );
}

const HEADER = [
  "| lead (hours) | hours (with load reduction) | outlook AUC / Brier | persistence AUC / Brier | same hour, 7 days: AUC / Brier |",
  "| --- | --- | --- | --- | --- |",
];

/** The table of every bucket of lead over the scored years, then each year's. */
export function outlookTable(evaluation: OutlookEvaluation): string {
  const rows = (label: string, buckets: readonly BucketScore[]) =>
    buckets.map((b) => `| ${label}${b.bucket} | ${count(b.hours)} (${count(b.shedHours)}) | ${cells(b)} |`);
  return [
    ...HEADER,
    ...rows("", evaluation.buckets),
    ...evaluation.perYear.flatMap((y) => rows(`${y.year}: `, y.buckets)),
  ].join("\n");
}

const DAY_HEADER = [
  "| lead of the day's first hour | days (with load reduction) | outlook AUC / Brier | persistence AUC / Brier | same hour, 7 days: AUC / Brier | hours to expect, RMSE: outlook / persistence / same hour |",
  "| --- | --- | --- | --- | --- | --- |",
];

/** The table of the days, per bucket of lead of their first hour, then each year's. */
export function dailyTable(evaluation: OutlookEvaluation): string {
  const rows = (label: string, buckets: readonly DayScore[]) =>
    buckets.map((b) => {
      const e = b.hoursError;
      const best = e.outlook < e.persistence && e.outlook < e.sameHour;
      const errors = `${best ? `**${f3(e.outlook)}**` : f3(e.outlook)} / ${f3(e.persistence)} / ${f3(e.sameHour)}`;
      return `| ${label}${b.bucket} | ${count(b.days)} (${count(b.shedDays)}) | ${cells(b)} | ${errors} |`;
    });
  return [
    ...DAY_HEADER,
    ...rows("", evaluation.days),
    ...evaluation.daysPerYear.flatMap((y) => rows(`${y.year}: `, y.buckets)),
  ].join("\n");
}

type Tenths = { readonly bucket: string; readonly reliability: readonly Reliability[] };

// Per bucket, each tenth of probability: mean probability / observed share (hours or days); the
// buckets over every scored year, then each year's under its label.
function tenthsTable(
  lead: string,
  buckets: readonly Tenths[],
  years: readonly (readonly [string, readonly Tenths[]])[] = [],
): string {
  const tenths = Array.from({ length: 10 }, (_, i) => `${i / 10}–${(i + 1) / 10}`);
  const rows = (label: string, of: readonly Tenths[]) =>
    of.map(
      (b) =>
        `| ${label}${b.bucket} | ` +
        b.reliability
          .map((r) => (r.count === 0 ? "" : `${f3(r.predicted)} / ${f3(r.observed)} (${count(r.count)})`))
          .join(" | ") +
        " |",
    );
  return [
    `| ${lead} | ${tenths.join(" | ")} |`,
    `| --- | ${tenths.map(() => "---").join(" | ")} |`,
    ...rows("", buckets),
    ...years.flatMap(([label, of]) => rows(label, of)),
  ].join("\n");
}

/** The reliability table: per bucket, each tenth of probability with its hours; then each year's. */
export const reliabilityTable = (evaluation: OutlookEvaluation) =>
  tenthsTable(
    "lead (hours)",
    evaluation.buckets,
    evaluation.perYear.map((y) => [`${y.year}: `, y.buckets] as const),
  );

/** The days' reliability table: per bucket of their first hour's lead, each tenth with its days. */
export const dailyReliabilityTable = (evaluation: OutlookEvaluation) =>
  tenthsTable("lead of the day's first hour", evaluation.days);

/** The bar the outlook is held to: each tenth of probability with this many hours or more… */
export const RELIABILITY_MIN_COUNT = 100;
/** …is within this of the share of its hours that had load reduction. */
export const RELIABILITY_TOLERANCE = 0.1;

/** A bucket against the bar: whether it beats both baselines, and its tenths within tolerance. */
export interface BucketVerdict {
  readonly bucket: string;
  readonly auc: boolean;
  readonly brier: boolean;
  /** Tenths with `RELIABILITY_MIN_COUNT` hours or more, and those within `RELIABILITY_TOLERANCE`. */
  readonly tenths: number;
  readonly within: number;
}

/** Each bucket against the bar: AUC and Brier better than both baselines, and its reliability. */
export function bucketVerdicts(buckets: readonly BucketReliability[]): BucketVerdict[] {
  return buckets.map((b) => {
    const counted = b.reliability.filter((r) => r.count >= RELIABILITY_MIN_COUNT);
    const near = counted.filter(
      (r) => Math.abs((r.predicted ?? 0) - (r.observed ?? 0)) <= RELIABILITY_TOLERANCE,
    );
    return {
      bucket: b.bucket,
      ...beatsBoth(b),
      tenths: counted.length,
      within: near.length,
    };
  });
}

/** Whether every bucket of an evaluation, over all its years and in each, meets the whole bar. */
export function meetsTheBar(evaluation: OutlookEvaluation): boolean {
  return [evaluation.buckets, ...evaluation.perYear.map((y) => y.buckets)]
    .flatMap(bucketVerdicts)
    .every((v) => v.auc && v.brier && v.within === v.tenths);
}

/** The evaluation against the bar, a row per bucket over every scored year, then each year's. */
export function verdictTable(evaluation: OutlookEvaluation): string {
  const yes = (x: boolean) => (x ? "yes" : "**no**");
  const rows = (label: string, buckets: readonly BucketReliability[]) =>
    bucketVerdicts(buckets).map(
      (v) =>
        `| ${label}${v.bucket} | ${yes(v.auc)} / ${yes(v.brier)} | ` +
        `${v.within === v.tenths ? "" : "**"}${v.within} of ${v.tenths}${v.within === v.tenths ? "" : "**"} |`,
    );
  return [
    `| lead (hours) | better than both baselines: AUC / Brier | tenths of ${RELIABILITY_MIN_COUNT}+ hours within ${RELIABILITY_TOLERANCE} of what happened |`,
    "| --- | --- | --- |",
    ...rows("", evaluation.buckets),
    ...evaluation.perYear.flatMap((y) => rows(`${y.year}: `, y.buckets)),
  ].join("\n");
}

/** The formula's weights: a row per input, a column per bucket of lead. */
export function outlookFormulaTable(fit: OutlookFit): string {
  const buckets = LEAD_BUCKETS.map((b) => b.name);
  const w = (x: number) => x.toFixed(4);
  return [
    `| input | ${buckets.map((b) => `lead ${b}`).join(" | ")} |`,
    `| --- | ${buckets.map(() => "---").join(" | ")} |`,
    `| (intercept) | ${buckets.map((b) => w(fit[b].intercept)).join(" | ")} |`,
    ...OUTLOOK_INPUTS.map(
      (name) => `| \`${name}\` | ${buckets.map((b) => w(fit[b].weights[name])).join(" | ")} |`,
    ),
  ].join("\n");
}

/** The outlook's tables for docs/api.md, by block name. */
export function outlookTables(fit: OutlookFit, evaluation: OutlookEvaluation): Record<string, string> {
  return {
    formula: outlookFormulaTable(fit),
    evaluation: outlookTable(evaluation),
    reliability: reliabilityTable(evaluation),
    daily: dailyTable(evaluation),
    "daily-reliability": dailyReliabilityTable(evaluation),
    verdict: verdictTable(evaluation),
  };
}

const BLOCK = /<!-- outlook: (\S+) -->\n[\s\S]*?<!-- \/outlook -->/g;

/** `doc` with every `<!-- outlook: NAME -->` block rewritten; throws on a name it does not know. */
export function withOutlookTables(doc: string, tables: Readonly<Record<string, string>>): string {
  return doc.replace(BLOCK, (_all, name: string) => {
    const table = tables[name];
    if (table === undefined) throw new Error(`docs/api.md: no outlook table is named ${name}`);
    return `<!-- outlook: ${name} -->\n\n${table}\n\n<!-- /outlook -->`;
  });
}
