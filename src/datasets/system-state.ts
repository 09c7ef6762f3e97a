/**
 * `grid.system_state`: residual demand, forecast, renewables, trade and the derived metrics of
 * docs/api.md ("System state, interval=1h"), hourly or aggregated per UTC day
 * ("System state, interval=1d"). One table: each field, its meaning, its hourly computation from
 * stored columns and its daily rule.
 */
import { type Reading, valueAt } from "../source/reading.ts";
import { fromSourceMeta, HOURS_FIELD, mw, MW, percent } from "../records/dataset.ts";
import { defineDataset, type HourAt } from "../records/dataset-table.ts";
import {
  COL,
  differenceOrNull,
  GENERATION_COLUMNS,
  namesOf,
  ratioOrNull,
  TOTAL_RE_COLUMNS,
  totalGeneration,
  totalRe,
} from "../records/source-fields.ts";

/** One stored hour: its reading and, for the OCGT ramp, the reading of the hour before. */
export interface ReadingHour {
  readonly reading: Reading;
  previous(): Reading | undefined;
}

const col = (column: number) => (h: ReadingHour) => valueAt(h.reading, column);
const residualDemand = col(COL.residualDemand);
const residualForecast = col(COL.residualForecast);
const imports = col(COL.imports);
const exports = col(COL.exports);
const re = (h: ReadingHour) => totalRe(h.reading);
const generation = (h: ReadingHour) => totalGeneration(h.reading);
const BASE = [residualDemand, residualForecast, re, imports, exports];
const [DEMAND, FORECAST, IMPORTS, EXPORTS, OCGT] = namesOf(
  COL.residualDemand,
  COL.residualForecast,
  COL.imports,
  COL.exports,
  COL.utilityOcgt,
) as [string, string, string, string, string];

/** The hour of `reading`, or null when it holds none of the base fields (demand, forecast, RE, trade). */
export function readingHour(reading: Reading, at: Pick<HourAt<unknown>, "previous">): ReadingHour | null {
  const hour = { reading, previous: at.previous };
  return BASE.some((field) => field(hour) !== null) ? hour : null;
}

const mean = <F extends string>(of: F, description: string) => ({ ...MW, description, from: { mean: of } });

/** The `grid.system_state` dataset. */
export const systemState = defineDataset({
  id: "grid.system_state",
  title: "System state",
  kind: "readings",
  path: "/api/v1/grid/system-state",
  scope: "normalized_data",
  description:
    "Residual demand, forecast, renewables, imports and exports, and derived metrics (net import, renewable share, OCGT ramp, forecast error).",
  derived: { "1h": true, "1d": true },
  meta: fromSourceMeta,
  hour: readingHour,
  hourly: {
    residual_demand_mw: {
      ...mw(
        "Residual demand",
        "Residual demand: system demand less renewable generation (`Residual Demand`).",
      ),
      columns: [DEMAND],
      value: residualDemand,
    },
    residual_forecast_mw: {
      ...mw("Residual demand forecast", "Forecast residual demand (`Residual Forecast`)."),
      columns: [FORECAST],
      value: residualForecast,
    },
    total_re_mw: {
      ...mw("Renewables", "Total renewable generation (`Total RE`, else wind + PV + CSP + other RE)."),
      columns: TOTAL_RE_COLUMNS,
      value: re,
    },
    imports_mw: { ...mw("Imports", "International imports."), columns: [IMPORTS], value: imports },
    exports_mw: {
      ...mw("Exports", "International exports (live portal downloads carry none)."),
      columns: [EXPORTS],
      value: exports,
    },
    net_import_mw: {
      ...mw("Net import", "imports_mw - exports_mw."),
      columns: [IMPORTS, EXPORTS],
      value: (h) => differenceOrNull(imports(h), exports(h)),
    },
    renewable_share_pct: {
      ...percent(
        "Renewable share",
        "100 * total_re_mw / generation, where generation is the sum of the ten generation-mix fields.",
      ),
      columns: [...TOTAL_RE_COLUMNS, ...GENERATION_COLUMNS],
      // As docs/api.md writes it, 100 * total_re / generation, evaluated left to right.
      value: (h) => {
        const r = re(h);
        return ratioOrNull(r === null ? null : 100 * r, generation(h));
      },
    },
    ocgt_ramp_mw: {
      ...mw(
        "OCGT ramp",
        "utility_ocgt_mw of this hour less that of the hour before (read even before `start`).",
      ),
      columns: [OCGT],
      value: (h) =>
        differenceOrNull(valueAt(h.reading, COL.utilityOcgt), valueAt(h.previous(), COL.utilityOcgt)),
      // The hour before midnight is in the day before.
      lookbackDays: 1,
      // A sum of ramps is only the period's net change: no sum.
      aggregates: ["mean", "min", "max"],
    },
    forecast_error_mw: {
      ...mw("Forecast error", "residual_demand_mw - residual_forecast_mw."),
      columns: [DEMAND, FORECAST],
      value: (h) => differenceOrNull(residualDemand(h), residualForecast(h)),
    },
  },
  unserved: { generation_mw: generation },
  daily: {
    hours: { ...HOURS_FIELD, from: { count: true } },
    avg_residual_demand_mw: mean("residual_demand_mw", "Mean residual demand over the day's hours."),
    max_residual_demand_mw: {
      ...mw("Residual demand, peak", "Highest hourly residual demand of the day."),
      from: { max: "residual_demand_mw" },
    },
    avg_residual_forecast_mw: mean("residual_forecast_mw", "Mean forecast residual demand."),
    avg_total_re_mw: mean("total_re_mw", "Mean total renewable generation."),
    avg_imports_mw: mean("imports_mw", "Mean imports."),
    avg_exports_mw: mean("exports_mw", "Mean exports."),
    avg_net_import_mw: mean("net_import_mw", "Mean net import."),
    renewable_share_pct: {
      ...percent(
        "Renewable share",
        "Energy-weighted: 100 * sum(total_re) / sum(generation) over the hours that have both.",
      ),
      from: { share: { numerator: "total_re_mw", denominator: "generation_mw", scale: 100 } },
    },
    max_ocgt_ramp_mw: {
      ...MW,
      description: "The largest hourly OCGT ramp of the day (the plain maximum; either sign).",
      from: { max: "ocgt_ramp_mw" },
    },
    min_ocgt_ramp_mw: {
      ...MW,
      description: "The smallest hourly OCGT ramp of the day (the plain minimum; either sign).",
      from: { min: "ocgt_ramp_mw" },
    },
    avg_forecast_error_mw: mean("forecast_error_mw", "Mean forecast error."),
  },
  chart: { kind: "lines" },
});
