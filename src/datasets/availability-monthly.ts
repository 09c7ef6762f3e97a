/**
 * `grid.availability_monthly`: the fleet's availability per calendar month (SAST) as the portal
 * publishes it (docs/api.md: "Weekly and monthly availability").
 */
import { availabilityPeriods, factorFields, RELATION } from "./availability-factors.ts";

const BREAKDOWN = "Monthly_Eskom_generation_capacity_breakdown.csv";

/** The `grid.availability_monthly` dataset. */
export const availabilityMonthly = availabilityPeriods(
  {
    id: "grid.availability_monthly",
    title: "Availability per month",
    path: "/api/v1/grid/availability/monthly",
    description:
      "The fleet's availability per calendar month (SAST) as the portal publishes it: energy availability factor and planned, unplanned and other capability loss factors.",
    reference: [
      `Read from the portal's \`${BREAKDOWN}\`; the empty row it ends with (the month to come) is no value. Every month a download ever held is kept, with every revision (\`as_of\`).`,
      RELATION,
    ].join("\n\n"),
    interval: "1mo",
  },
  [BREAKDOWN],
  [
    {
      name: "date",
      label: "Month",
      type: "string",
      format: "date",
      description: "The month's first day, YYYY-MM-DD: the month runs from 00:00 SAST on it.",
    },
    ...factorFields(BREAKDOWN, ""),
  ],
);
