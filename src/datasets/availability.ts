/**
 * `grid.availability`: the utility's installed capacity, its planned, unplanned and other outages,
 * what is left available, and the energy availability factor (EAF), hourly or per UTC day
 * (docs/api.md: "Availability"). Installed capacity and the three outages come from data-request
 * exports only; the live portal's outage trend (`Hourly_UCLF_and_OCLF_Trend.csv`) gives unplanned
 * plus other outages as one figure, and its capacity file an available capacity that counts units
 * not yet commercial: each is served as its own field, never put in place of the export's.
 */
import { type Reading, valueAt } from "../source/reading.ts";
import { fromSourceMeta, HOURS_FIELD, mw, MW, percent, PERCENT } from "../records/dataset.ts";
import { defineDataset } from "../records/dataset-table.ts";
import { COL, namesOf, ratioOrNull, sourceField, storedMw } from "../records/source-fields.ts";

const INPUTS = [COL.installedCapacity, COL.plannedOutages, COL.unplannedOutages, COL.otherOutages];
const ANY = [...INPUTS, COL.uclfOclf, COL.availableCapacity];

/** The reading of an hour holding at least one capacity or outage column, else null. */
export function availabilityHour(reading: Reading): Reading | null {
  return ANY.some((column) => valueAt(reading, column) !== null) ? reading : null;
}

/** Installed less the three outages, or null when any is missing. */
function available(reading: Reading): number | null {
  const [installed, ...outages] = INPUTS.map((column) => valueAt(reading, column));
  if (installed === null || outages.some((o) => o === null)) return null;
  return installed! - outages[0]! - outages[1]! - outages[2]!;
}

const mean = <F extends string>(of: F, description: string) => ({ ...MW, description, from: { mean: of } });

/** The `grid.availability` dataset. */
export const availability = defineDataset({
  id: "grid.availability",
  title: "Availability",
  kind: "readings",
  path: "/api/v1/grid/availability",
  scope: "normalized_data",
  description:
    "Plant availability: the utility's installed capacity, planned, unplanned and other outages, available capacity and the energy availability factor, hourly or per UTC day.",
  derived: { "1h": true, "1d": true },
  meta: fromSourceMeta,
  hour: availabilityHour,
  hourly: {
    installed_capacity_mw: storedMw(
      "Installed capacity",
      "The utility's installed capacity (`Installed Eskom Capacity`).",
      COL.installedCapacity,
    ),
    planned_outages_mw: storedMw(
      "Planned outages",
      "Planned capability loss: maintenance (`Total PCLF`).",
      COL.plannedOutages,
    ),
    unplanned_outages_mw: storedMw(
      "Unplanned outages",
      "Unplanned capability loss: breakdowns (`Total UCLF`).",
      COL.unplannedOutages,
    ),
    other_outages_mw: storedMw(
      "Other outages",
      "Other capability loss, outside the utility's control (`Total OCLF`).",
      COL.otherOutages,
    ),
    available_capacity_mw: {
      ...mw(
        "Available capacity",
        "installed_capacity_mw - planned_outages_mw - unplanned_outages_mw - other_outages_mw.",
      ),
      columns: namesOf(...INPUTS),
      value: available,
    },
    energy_availability_factor_pct: {
      ...percent("Energy availability factor", "100 * available_capacity_mw / installed_capacity_mw."),
      columns: namesOf(...INPUTS),
      value: (reading) => {
        const a = available(reading);
        return ratioOrNull(a === null ? null : 100 * a, valueAt(reading, COL.installedCapacity));
      },
    },
    available_capacity_incl_non_comm_mw: storedMw(
      "Available capacity (portal)",
      "Available capacity as the portal's capacity file publishes it, with units not yet in commercial operation (`Available Capacity Incl Non Comm Units`): another definition than available_capacity_mw, so a field of its own.",
      COL.availableCapacity,
    ),
    uclf_oclf_mw: storedMw(
      "Unplanned and other outages",
      "Unplanned plus other capability loss, from the portal's hourly outage trend (`Hourly UCLF+OCLF`); the export's hours have unplanned_outages_mw and other_outages_mw instead.",
      COL.uclfOclf,
    ),
    source: sourceField(COL.availableCapacity),
  },
  daily: {
    avg_installed_capacity_mw: mean("installed_capacity_mw", "Mean installed capacity over the day's hours."),
    avg_planned_outages_mw: mean("planned_outages_mw", "Mean planned outages."),
    avg_unplanned_outages_mw: mean("unplanned_outages_mw", "Mean unplanned outages."),
    avg_other_outages_mw: mean("other_outages_mw", "Mean other outages."),
    avg_available_capacity_mw: mean("available_capacity_mw", "Mean available capacity."),
    energy_availability_factor_pct: {
      ...PERCENT,
      label: "Energy availability factor",
      description:
        "Energy-weighted: 100 * sum(available_capacity_mw) / sum(installed_capacity_mw) over the hours that have both.",
      from: {
        share: { numerator: "available_capacity_mw", denominator: "installed_capacity_mw", scale: 100 },
      },
    },
    avg_available_capacity_incl_non_comm_mw: mean(
      "available_capacity_incl_non_comm_mw",
      "Mean available capacity as the capacity file publishes it.",
    ),
    avg_uclf_oclf_mw: mean("uclf_oclf_mw", "Mean unplanned plus other outages, from the outage trend."),
    hours: { ...HOURS_FIELD, from: { count: true } },
  },
  chart: { kind: "lines" },
});
