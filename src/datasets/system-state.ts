/**
 * `grid.system_state`: residual demand, forecast, renewables, trade and the derived metrics of
 * the README's API reference ("System state, interval=1h"), hourly or aggregated per UTC day
 * ("System state, interval=1d").
 */
import * as aq from "arquero";
import { type Reading, valueAt } from "../source/reading.ts";
import { dayKey, dayRange, formatInstant, HOUR_MS } from "../time.ts";
import {
  type DataRecord,
  type Dataset,
  type FieldDoc,
  HOURS_FIELD,
  mw,
  type RangeRequest,
  TIME_FIELDS,
} from "./dataset.ts";
import { COL, differenceOrNull, ratioOrNull, round3, totalGeneration, totalRe } from "./source-fields.ts";
import { forEachStoredHour } from "./stored-hours.ts";
import type { ReadingStore } from "../store/reading-store.ts";

/** One hour of system state, unrounded; the share inputs feed the daily energy-weighted share. */
export interface SystemStateHour {
  readonly residual_demand_mw: number | null;
  readonly residual_forecast_mw: number | null;
  readonly total_re_mw: number | null;
  readonly imports_mw: number | null;
  readonly exports_mw: number | null;
  readonly net_import_mw: number | null;
  readonly renewable_share_pct: number | null;
  readonly ocgt_ramp_mw: number | null;
  readonly forecast_error_mw: number | null;
  readonly generation_mw: number | null;
}

const HOURLY_DOCS: readonly FieldDoc[] = [
  TIME_FIELDS["1h"],
  mw("residual_demand_mw", "Residual demand: system demand less renewable generation (`Residual Demand`)."),
  mw("residual_forecast_mw", "Forecast residual demand (`Residual Forecast`)."),
  mw("total_re_mw", "Total renewable generation (`Total RE`, else wind + PV + CSP + other RE)."),
  mw("imports_mw", "International imports."),
  mw("exports_mw", "International exports (live portal downloads carry none)."),
  mw("net_import_mw", "imports_mw - exports_mw."),
  {
    name: "renewable_share_pct",
    type: "number",
    unit: "%",
    nullable: true,
    description:
      "100 * total_re_mw / generation, where generation is the sum of the ten generation-mix fields.",
  },
  mw("ocgt_ramp_mw", "utility_ocgt_mw of this hour less that of the hour before (read even before `start`)."),
  mw("forecast_error_mw", "residual_demand_mw - residual_forecast_mw."),
];

const DAILY_DOCS: readonly FieldDoc[] = [
  TIME_FIELDS["1d"],
  HOURS_FIELD,
  mw("avg_residual_demand_mw", "Mean residual demand over the day's hours."),
  mw("max_residual_demand_mw", "Highest hourly residual demand of the day."),
  mw("avg_residual_forecast_mw", "Mean forecast residual demand."),
  mw("avg_total_re_mw", "Mean total renewable generation."),
  mw("avg_imports_mw", "Mean imports."),
  mw("avg_exports_mw", "Mean exports."),
  mw("avg_net_import_mw", "Mean net import."),
  {
    name: "renewable_share_pct",
    type: "number",
    unit: "%",
    nullable: true,
    description: "Energy-weighted: 100 * sum(total_re) / sum(generation) over the hours that have both.",
  },
  mw("max_ocgt_ramp_mw", "The largest hourly OCGT ramp of the day (the plain maximum; either sign)."),
  mw("min_ocgt_ramp_mw", "The smallest hourly OCGT ramp of the day (the plain minimum; either sign)."),
  mw("avg_forecast_error_mw", "Mean forecast error."),
];

/** The daily fields after `date` and `hours`, in served order. */
export const SYSTEM_STATE_DAILY_FIELDS = DAILY_DOCS.slice(2).map((f) => f.name);

/**
 * The system state of one hour from its reading and the previous hour's (for the OCGT ramp), or
 * null when the reading holds none of the dataset's base fields.
 */
export function systemStateHour(reading: Reading, previous: Reading | undefined): SystemStateHour | null {
  const residualDemand = valueAt(reading, COL.residualDemand);
  const residualForecast = valueAt(reading, COL.residualForecast);
  const re = totalRe(reading);
  const imports = valueAt(reading, COL.imports);
  const exports = valueAt(reading, COL.exports);
  if (
    residualDemand === null &&
    residualForecast === null &&
    re === null &&
    imports === null &&
    exports === null
  ) {
    return null;
  }
  const generation = totalGeneration(reading);
  // As the README writes it, 100 * total_re / generation, evaluated left to right.
  const share = ratioOrNull(re === null ? null : 100 * re, generation);
  return {
    residual_demand_mw: residualDemand,
    residual_forecast_mw: residualForecast,
    total_re_mw: re,
    imports_mw: imports,
    exports_mw: exports,
    net_import_mw: differenceOrNull(imports, exports),
    renewable_share_pct: share,
    ocgt_ramp_mw: differenceOrNull(valueAt(reading, COL.utilityOcgt), valueAt(previous, COL.utilityOcgt)),
    forecast_error_mw: differenceOrNull(residualDemand, residualForecast),
    generation_mw: generation,
  };
}

/** The unrounded system state of every stored hour in [from, to). */
export function systemStateHours(
  store: ReadingStore,
  from: number,
  to: number,
): { hour: number; state: SystemStateHour }[] {
  const out: { hour: number; state: SystemStateHour }[] = [];
  let previousHour = NaN;
  let previous: Reading | undefined;
  forEachStoredHour(store, from, to, (hour, reading) => {
    const before = previousHour === hour - HOUR_MS ? previous : store.reading(hour - HOUR_MS);
    const state = systemStateHour(reading, before);
    previousHour = hour;
    previous = reading;
    if (state !== null) out.push({ hour, state });
  });
  return out;
}

/** Served hourly records. */
export function systemStateHourlyRecords(store: ReadingStore, from: number, to: number): DataRecord[] {
  // An object literal per record gives every record one shape, which keeps serialization fast.
  return systemStateHours(store, from, to).map(({ hour, state: s }) => ({
    ts: formatInstant(hour),
    residual_demand_mw: round3(s.residual_demand_mw),
    residual_forecast_mw: round3(s.residual_forecast_mw),
    total_re_mw: round3(s.total_re_mw),
    imports_mw: round3(s.imports_mw),
    exports_mw: round3(s.exports_mw),
    net_import_mw: round3(s.net_import_mw),
    renewable_share_pct: round3(s.renewable_share_pct),
    ocgt_ramp_mw: round3(s.ocgt_ramp_mw),
    forecast_error_mw: round3(s.forecast_error_mw),
  }));
}

/** Aggregates hourly system state into one record per UTC day (README: "System state, interval=1d"). */
export function aggregateSystemStateDays(
  hours: readonly { hour: number; state: SystemStateHour }[],
): DataRecord[] {
  if (hours.length === 0) return [];
  const rows = hours.map(({ hour, state }) => {
    const shared = state.total_re_mw !== null && state.generation_mw !== null;
    return {
      date: dayKey(hour),
      ...state,
      share_re: shared ? state.total_re_mw : null,
      share_generation: shared ? state.generation_mw : null,
    };
  });
  const daily = aq
    .from(rows)
    .groupby("date")
    .rollup({
      hours: aq.op.count(),
      avg_residual_demand_mw: aq.op.mean("residual_demand_mw"),
      max_residual_demand_mw: aq.op.max("residual_demand_mw"),
      avg_residual_forecast_mw: aq.op.mean("residual_forecast_mw"),
      avg_total_re_mw: aq.op.mean("total_re_mw"),
      avg_imports_mw: aq.op.mean("imports_mw"),
      avg_exports_mw: aq.op.mean("exports_mw"),
      avg_net_import_mw: aq.op.mean("net_import_mw"),
      share_re: aq.op.sum("share_re"),
      share_generation: aq.op.sum("share_generation"),
      share_hours: aq.op.valid("share_re"),
      max_ocgt_ramp_mw: aq.op.max("ocgt_ramp_mw"),
      min_ocgt_ramp_mw: aq.op.min("ocgt_ramp_mw"),
      avg_forecast_error_mw: aq.op.mean("forecast_error_mw"),
    })
    .derive({
      renewable_share_pct: (d: Record<string, number>) =>
        d.share_hours! > 0 && d.share_generation !== 0 ? (100 * d.share_re!) / d.share_generation! : null,
    })
    .orderby("date")
    .objects() as Record<string, string | number | null | undefined>[];
  return daily.map((day) => {
    const record: DataRecord = { date: day.date as string, hours: day.hours as number };
    for (const field of SYSTEM_STATE_DAILY_FIELDS)
      record[field] = round3(day[field] as number | null | undefined);
    return record;
  });
}

/** The `grid.system_state` dataset. */
export const systemState: Dataset = {
  id: "grid.system_state",
  path: "/api/v1/grid/system-state",
  scope: "normalized_data",
  description:
    "Residual demand, forecast, renewables, imports and exports, and derived metrics (net import, renewable share, OCGT ramp, forecast error).",
  fields: { "1h": HOURLY_DOCS, "1d": DAILY_DOCS },
  derived: { "1h": true, "1d": true },
  lookbackDays: 1,
  meta: (interval) => ({
    derivation_method: interval === "1h" ? "computed_from_source" : "aggregation_from_1h",
  }),
  records(store: ReadingStore, { start, end, interval }: RangeRequest): DataRecord[] {
    if (interval === "1h") return systemStateHourlyRecords(store, start, end);
    const { from, to } = dayRange(start, end);
    return aggregateSystemStateDays(systemStateHours(store, from, to));
  },
};
