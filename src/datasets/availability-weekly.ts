/**
 * `grid.availability_weekly`: the fleet's availability per week (Monday to Sunday, SAST) as the
 * portal publishes it (docs/api.md: "Weekly and monthly availability").
 */
import type { FieldText } from "../records/dataset.ts";
import { availabilityPeriods, factorFields, field, RELATION } from "./availability-factors.ts";

const BREAKDOWN = "Weekly_Eskom_generation_capacity_breakdown.csv";
const OUTAGES = "Weekly_unplanned_outages.csv";

const mw = (label: string, description: string): FieldText => ({
  label,
  type: "number",
  unit: "MW",
  nullable: true,
  description,
});

/** The `grid.availability_weekly` dataset. */
export const availabilityWeekly = availabilityPeriods(
  {
    id: "grid.availability_weekly",
    title: "Availability per week",
    path: "/api/v1/grid/availability/weekly",
    description:
      "The fleet's availability per week (Monday to Sunday, SAST) as the portal publishes it: energy availability factor, planned, unplanned and other capability loss factors, and the least, mean and most unplanned plus other outage in MW.",
    reference: [
      `Read from the portal's \`${BREAKDOWN}\` (the percentages) and \`${OUTAGES}\` (the MW), each holding the weeks of Eskom's financial year to date; every week a download ever held is kept, with every revision (\`as_of\`). A week one file does not give has nulls in its fields.`,
      RELATION,
    ].join("\n\n"),
    interval: "1w",
  },
  [BREAKDOWN, OUTAGES],
  [
    {
      name: "date",
      label: "Week",
      type: "string",
      format: "date",
      description:
        "The week's Monday, YYYY-MM-DD, as Eskom dates it: the week runs from 00:00 SAST on it for 7 days.",
    },
    ...factorFields(BREAKDOWN, "Weekly "),
    field("financial_year", {
      label: "Financial year",
      type: "string",
      nullable: true,
      description: "Eskom's financial year the week is counted in, as published (`Fin_Year`, e.g. 2025-26).",
    }),
    field(
      "min_uclf_oclf_mw",
      mw(
        "Unplanned and other outages, least",
        `The least hourly unplanned plus other capability loss of the week (\`Min of UCLF+OCLF\`, ${OUTAGES}).`,
      ),
    ),
    field(
      "avg_uclf_oclf_mw",
      mw(
        "Unplanned and other outages, mean",
        "The mean hourly unplanned plus other capability loss (`Average of UCLF+OCLF`).",
      ),
    ),
    field(
      "max_uclf_oclf_mw",
      mw(
        "Unplanned and other outages, most",
        "The most hourly unplanned plus other capability loss (`Max of UCLF+OCLF`).",
      ),
    ),
  ],
);
