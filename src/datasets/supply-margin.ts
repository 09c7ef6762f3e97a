/**
 * `grid.supply_margin`: the capacity Eskom had available beside the demand it had to meet, and the
 * margin between them, hourly or per UTC day (docs/api.md: "Supply margin"). Available capacity is
 * the live portal's (`System_hourly_demand_and_available_capacity.csv`): the data-request export
 * defines its available capacity otherwise (installed less planned, unplanned and other outages,
 * served by `grid.availability`), and the two are never mixed here.
 */
import { type Reading, valueAt } from "../source/reading.ts";
import { fromSourceMeta, HOURS_FIELD, mw, MW, PERCENT } from "../records/dataset.ts";
import { defineDataset } from "../records/dataset-table.ts";
import {
  COL,
  differenceOrNull,
  namesOf,
  ratioOrNull,
  sourceField,
  storedMw,
} from "../records/source-fields.ts";

const available = (reading: Reading) => valueAt(reading, COL.availableCapacity);
const residualDemand = (reading: Reading) => valueAt(reading, COL.residualDemand);
const margin = (reading: Reading) => differenceOrNull(available(reading), residualDemand(reading));
const MARGIN_COLUMNS = namesOf(COL.availableCapacity, COL.residualDemand);

/** The reading of an hour holding the live available capacity (with or without renewables), else null. */
export function supplyMarginHour(reading: Reading): Reading | null {
  return available(reading) !== null || valueAt(reading, COL.availableCapacityWithRe) !== null
    ? reading
    : null;
}

/** The `grid.supply_margin` dataset. */
export const supplyMargin = defineDataset({
  id: "grid.supply_margin",
  title: "Supply margin",
  kind: "readings",
  path: "/api/v1/grid/supply-margin",
  scope: "normalized_data",
  description:
    "Available generating capacity beside residual demand, and the margin between them in MW and as a share of demand, hourly or per UTC day.",
  reference: [
    "Available capacity is the portal's live figure, which counts units not yet in commercial operation. The data-request export's available capacity (installed less planned, unplanned and other outages) is defined otherwise and is served by `grid.availability`, never here.",
    "Residual demand is system state's (the demand file's, or the export's). The capacity file carries its own copy of demand, which differs from it by tens of MW where one file was revised and the other not; it is read only to check the file's renewables (docs/data.md: \"The capacity file's identity\").",
  ].join("\n\n"),
  derived: { "1h": true, "1d": true },
  meta: fromSourceMeta,
  hour: supplyMarginHour,
  hourly: {
    available_capacity_incl_non_comm_mw: storedMw(
      "Available capacity",
      "Available capacity, with units not yet in commercial operation (`Available Capacity Incl Non Comm Units`).",
      COL.availableCapacity,
    ),
    available_capacity_incl_non_comm_and_re_mw: storedMw(
      "Available capacity with renewables",
      "Available capacity with the renewables' output added (`Available_Capacity_Incl_Non_Comm_Units_Incl_Total_RE`).",
      COL.availableCapacityWithRe,
    ),
    residual_demand_mw: storedMw(
      "Residual demand",
      "Residual demand, as system state serves it (`Residual Demand`).",
      COL.residualDemand,
    ),
    margin_mw: {
      ...mw(
        "Margin",
        "available_capacity_incl_non_comm_mw - residual_demand_mw: what was left over; negative when residual demand exceeded it.",
      ),
      columns: MARGIN_COLUMNS,
      value: margin,
    },
    margin_pct: {
      ...PERCENT,
      label: "Margin share",
      description: "100 * margin_mw / residual_demand_mw.",
      columns: MARGIN_COLUMNS,
      value: (reading) => {
        const m = margin(reading);
        return ratioOrNull(m === null ? null : 100 * m, residualDemand(reading));
      },
    },
    source: sourceField(COL.availableCapacity, COL.availableCapacityWithRe, COL.residualDemand),
  },
  daily: {
    avg_available_capacity_incl_non_comm_mw: {
      ...MW,
      description: "Mean available capacity over the day's hours.",
      from: { mean: "available_capacity_incl_non_comm_mw" },
    },
    avg_available_capacity_incl_non_comm_and_re_mw: {
      ...MW,
      description: "Mean available capacity with renewables.",
      from: { mean: "available_capacity_incl_non_comm_and_re_mw" },
    },
    avg_residual_demand_mw: {
      ...MW,
      description: "Mean residual demand.",
      from: { mean: "residual_demand_mw" },
    },
    avg_margin_mw: { ...MW, description: "Mean margin.", from: { mean: "margin_mw" } },
    min_margin_mw: {
      ...MW,
      description: "The day's tightest hour: its lowest margin.",
      from: { min: "margin_mw" },
    },
    min_margin_pct: {
      ...PERCENT,
      description: "The day's lowest hourly margin_pct.",
      from: { min: "margin_pct" },
    },
    hours: { ...HOURS_FIELD, from: { count: true } },
  },
  chart: { kind: "lines" },
});
