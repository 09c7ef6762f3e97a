/**
 * The query of a PowerBI report's visual (docs/data.md: "PowerBI reports"): from the report's
 * model and layout (`modelsAndExploration`), the visual that plots a time category and every series
 * wanted, named as the CSV the report stands in for names its columns ("Available Capacity Incl Non
 * Comm Units" or its underscored form alike); and the body of one `querydata` request for it, a
 * window of rows at a time, the next window asked with the restart token of the one before.
 */
import { normalizeColumnName } from "./columns.ts";

/** What a report's visual must plot: a time category and series, by the CSV's names (normalized). */
export interface WantedSeries {
  readonly category: readonly string[];
  readonly series: readonly string[];
}

/** The query of one visual: what to send, and which of its columns is which wanted name. */
export interface VisualQuery {
  readonly modelId: number;
  readonly datasetId: string;
  readonly reportId: string | undefined;
  readonly visualId: string;
  /** The semantic query: the prototype's source, and its selections of the category and series. */
  readonly query: { readonly Version: number; readonly From: unknown; readonly Select: readonly unknown[] };
  /** Each selection's name (as the answer's descriptor gives it back) and the wanted name it is. */
  readonly names: ReadonlyMap<string, string>;
}

/** A model or layout that does not hold what the pull needs, and why. */
export class ReportModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReportModelError";
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// The property a selection reads: a column's, an aggregation's column's, or a measure's.
function propertyOf(select: Record<string, unknown>): string | undefined {
  for (const part of [
    select.Column,
    select.Measure,
    (select.Aggregation as { Expression?: unknown })?.Expression,
  ])
    if (isObject(part)) {
      const column = isObject(part.Column) ? part.Column : part;
      if (typeof column.Property === "string") return column.Property;
    }
  return undefined;
}

interface Visual {
  readonly id: string;
  readonly prototype: Record<string, unknown>;
}

// Every visual of the layout that has a query.
function visualsOf(exploration: Record<string, unknown>): Visual[] {
  const sections = Array.isArray(exploration.sections) ? (exploration.sections as unknown[]) : [];
  return sections.flatMap((section) =>
    (isObject(section) && Array.isArray(section.visualContainers)
      ? (section.visualContainers as unknown[])
      : []
    ).flatMap((container): Visual[] => {
      if (!isObject(container)) return [];
      let config: unknown = container.config;
      try {
        if (typeof config === "string") config = JSON.parse(config);
      } catch {
        return [];
      }
      if (!isObject(config) || typeof config.name !== "string" || !isObject(config.singleVisual)) return [];
      const prototype = config.singleVisual.prototypeQuery;
      return isObject(prototype) && Array.isArray(prototype.Select) ? [{ id: config.name, prototype }] : [];
    }),
  );
}

// The visual's selections of the wanted category and series, or undefined when it lacks one.
function selectionsOf(visual: Visual, wanted: WantedSeries) {
  const byName = new Map<string, Record<string, unknown>>();
  for (const select of visual.prototype.Select as unknown[]) {
    if (!isObject(select) || typeof select.Name !== "string") continue;
    const property = propertyOf(select);
    if (property !== undefined) byName.set(normalizeColumnName(property), select);
  }
  const category = wanted.category.find((name) => byName.has(name));
  if (category === undefined || !wanted.series.every((name) => byName.has(name))) return undefined;
  return [category, ...wanted.series].map((name) => ({ name, select: byName.get(name)! }));
}

/** The query of the report's visual that plots `wanted`; throws a ReportModelError saying why not. */
export function visualQuery(modelsAndExploration: unknown, wanted: WantedSeries): VisualQuery {
  if (!isObject(modelsAndExploration)) throw new ReportModelError("the report's model is not a JSON object");
  const [model] = Array.isArray(modelsAndExploration.models)
    ? (modelsAndExploration.models as unknown[])
    : [];
  const exploration = modelsAndExploration.exploration;
  if (
    !isObject(model) ||
    typeof model.id !== "number" ||
    typeof model.dbName !== "string" ||
    !isObject(exploration)
  )
    throw new ReportModelError("the report's answer names no model and layout");
  const visuals = visualsOf(exploration);
  for (const visual of visuals) {
    const chosen = selectionsOf(visual, wanted);
    if (chosen === undefined) continue;
    const { Version, From } = visual.prototype;
    const report = isObject(exploration.report) ? exploration.report.objectId : undefined;
    return {
      modelId: model.id,
      datasetId: model.dbName,
      reportId: typeof report === "string" ? report : undefined,
      visualId: visual.id,
      query: {
        Version: typeof Version === "number" ? Version : 2,
        From,
        Select: chosen.map((c) => c.select),
      },
      names: new Map(chosen.map((c) => [c.select.Name as string, c.name])),
    };
  }
  throw new ReportModelError(
    `no visual of the report plots ${[wanted.category.join(" or "), ...wanted.series].join(", ")} (its ${visuals.length} visual${visuals.length === 1 ? "" : "s"} with a query plot other series)`,
  );
}

/** The body of one `querydata` request: a window of `count` rows, after `restartTokens` when given. */
export function queryBody(visual: VisualQuery, count: number, restartTokens?: readonly unknown[]): object {
  const window = { Count: count, ...(restartTokens === undefined ? {} : { RestartTokens: restartTokens }) };
  return {
    version: "1.0.0",
    queries: [
      {
        Query: {
          Commands: [
            {
              SemanticQueryDataShapeCommand: {
                Query: visual.query,
                Binding: {
                  Primary: { Groupings: [{ Projections: visual.query.Select.map((_, i) => i) }] },
                  DataReduction: { DataVolume: 4, Primary: { Window: window } },
                  Version: 1,
                },
                ExecutionMetricsKind: 1,
              },
            },
          ],
        },
        ApplicationContext: {
          DatasetId: visual.datasetId,
          Sources: [
            {
              ...(visual.reportId === undefined ? {} : { ReportId: visual.reportId }),
              VisualId: visual.visualId,
            },
          ],
        },
      },
    ],
    cancelQueries: [],
    modelId: visual.modelId,
  };
}
