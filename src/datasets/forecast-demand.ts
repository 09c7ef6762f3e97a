/**
 * `forecasts.demand`: Eskom's official hourly demand forecast for the next three months, with
 * every issue kept (docs/api.md: "Eskom's demand forecast"), read from the forecast's issues
 * (`issues-reader.ts`).
 */
import * as v from "valibot";
import { type DatasetParameter, HOURS_FIELD, mw, TIME_FIELDS } from "../records/dataset.ts";
import { FORECAST_COLUMNS } from "../forecasts/forecast-issues.ts";
import { ISSUE_MODES } from "../forecasts/forecast-query.ts";
import type { IssuesDataset } from "./issues-reader.ts";

/** The longest range of `issues=all` at 1h, in days: every hour has about one issue per day. */
export const ALL_ISSUES_MAX_DAYS = 31;

/** `issues`: the newest issue of each hour, or every issue. */
export const ISSUES_PARAMETER: DatasetParameter = {
  schema: v.picklist(ISSUE_MODES),
  expected: "'latest' or 'all'",
  default: "latest",
  description: `latest (the default): for each target hour, the newest issue that forecast it (as of as_of, when given). all: every issue of each target hour, oldest first, to measure forecast skill (at most ${ALL_ISSUES_MAX_DAYS} days at interval 1h).`,
};

const ISSUED_AT = {
  name: "issued_at",
  label: "Issued at",
  type: "string",
  format: "date-time",
  description:
    "When the issue was first seen: the instant the service received the download that first carried it, UTC (no earlier than Eskom published it).",
} as const;

const described = (name: string, label: string, description: string) => ({ name, ...mw(label, description) });
const [CONTRACTED, RESIDUAL] = FORECAST_COLUMNS;

/** The `forecasts.demand` dataset. */
export const forecastDemand: IssuesDataset = {
  id: "forecasts.demand",
  title: "Eskom's demand forecast",
  kind: "issues",
  file: "Official_hourly_forecast_for_next_3_months.csv",
  path: "/api/v1/forecasts/demand",
  scope: "normalized_data",
  description:
    "Eskom's official hourly demand forecast for the next three months, by target hour, with the instant each issue was first seen; the newest issue by default, any issue as of an instant, or every issue.",
  reference: [
    "Read from the portal's `Official_hourly_forecast_for_next_3_months.csv`, which Eskom re-issues most days. Every issue is kept: a download whose forecast differs from the newest issue is a new issue, stamped with the instant it was received (`issued_at`); one that repeats it is the same issue.",
    "`as_of` gives the forecast as it stood at that instant: only issues seen by then. These are not system state's week-ahead `residual_forecast_mw` (the demand file's), which this forecast never overwrites.",
  ].join("\n\n"),
  derived: { "1h": false, "1d": true },
  intervals: ["1h", "1d"],
  takes: [],
  formats: ["json", "csv"],
  declines: "its records are UTC, in JSON or CSV",
  spanLimit: {
    days: ALL_ISSUES_MAX_DAYS,
    applies: (interval, options) => interval === "1h" && options.issues === "all",
    which: "with issues=all at interval 1h (every hour has about one issue per day)",
  },
  chart: { kind: "issues" },
  tool: {
    name: "forecast",
    description:
      "Eskom's official 3-month hourly demand forecast by target hour, with issued_at (when each issue was first seen): the newest issue of each hour (issues=latest), or every issue (issues=all, at most 31 days at 1h), as it stood at as_of. UTC only; interval 1h or 1d.",
  },
  parameters: { issues: ISSUES_PARAMETER },
  meta: (interval) => ({
    derivation_method: interval === "1h" ? "as_published" : "aggregation_from_1h",
  }),
  statusMeta: {
    issues: { enum: ["latest", "all"], description: "The issues the records come from." },
    last_issued: {
      type: ["string", "null"],
      description: "When the newest issue the request could read was first seen; null when there is none.",
    },
  },
  fields: {
    "1h": [
      TIME_FIELDS["1h"],
      ISSUED_AT,
      {
        ...described(
          "rsa_contracted_forecast_mw",
          "Contracted demand forecast",
          "Forecast demand of the customers Eskom supplies under contract (`RSA Contracted Forecast`).",
        ),
        columns: [CONTRACTED],
      },
      {
        ...described(
          "residual_forecast_mw",
          "Residual demand forecast",
          "Forecast residual demand: the contracted forecast less renewables (`Residual Forecast`).",
        ),
        columns: [RESIDUAL],
      },
    ],
    "1d": [
      TIME_FIELDS["1d"],
      {
        ...ISSUED_AT,
        description:
          "The issue the day's values come from; with issues=latest, the newest of the issues its hours come from.",
      },
      described(
        "avg_rsa_contracted_forecast_mw",
        "Contracted demand forecast, mean",
        "Mean contracted forecast over the day's hours.",
      ),
      described(
        "peak_rsa_contracted_forecast_mw",
        "Contracted demand forecast, peak",
        "Highest hourly contracted forecast of the day.",
      ),
      described(
        "avg_residual_forecast_mw",
        "Residual demand forecast, mean",
        "Mean residual forecast over the day's hours.",
      ),
      described(
        "peak_residual_forecast_mw",
        "Residual demand forecast, peak",
        "Highest hourly residual forecast of the day.",
      ),
      {
        name: "hours",
        ...HOURS_FIELD,
        description: "How many forecast hours the day aggregates: 24 for a complete day.",
      },
    ],
  },
};
