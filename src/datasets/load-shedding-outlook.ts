/**
 * `features.load_shedding_outlook`: the chance of load reduction in each hour of the coming week,
 * issued now or as of any instant (docs/api.md: "Load-shedding outlook"), read by
 * `outlook-reader.ts` through the formula of `features/outlook-model.ts`.
 */
import { HORIZON_HOURS } from "../features/outlook.ts";
import { OUTLOOK_COLUMNS } from "../features/outlook-inputs.ts";
import { OUTLOOK_BANDS, OUTLOOK_VERSION } from "../features/outlook-model.ts";
import type { FieldDoc } from "../records/dataset.ts";
import type { OutlookDataset } from "./outlook-reader.ts";

const BANDS = OUTLOOK_BANDS.map(([name]) => name);
const bandText = OUTLOOK_BANDS.map(([name, from]) => `${name} from ${from}`).join(", ");

const PROBABILITY: FieldDoc = {
  name: "probability",
  label: "Chance of load reduction",
  type: "number",
  unit: "probability",
  minimum: 0,
  maximum: 1,
  description: "The chance that manual load reduction is above 0 in the hour (0 to 1, 4 decimals).",
};

/**
 * What an assistant relaying the outlook must say with it (docs/api.md, "What it cannot know", and
 * its evaluation): a chance, not an announcement, of data days old, judged on few years.
 */
const CANNOT_KNOW =
  "It is a chance computed from past hours and Eskom's demand forecast, not an announcement: it cannot know a stage Eskom announces after its newest data (the portal runs days behind; newest_actual in meta) or a unit that trips. Judged on 2021, 2022 and the months of October 2022 to May 2023, it ranked hours well within three days and weakly past a week, and its chances were too high in years of short episodes and too low in months of load shedding without end: say so when relaying a number.";

/** The `features.load_shedding_outlook` dataset. */
export const loadSheddingOutlook: OutlookDataset = {
  id: "features.load_shedding_outlook",
  title: "Load-shedding outlook",
  kind: "outlook",
  reads: OUTLOOK_COLUMNS,
  file: "Official_hourly_forecast_for_next_3_months.csv",
  path: "/api/v1/features/load-shedding-outlook",
  scope: "features",
  description: `The chance of load reduction in each hour from the one after the newest hour with an actual value to ${HORIZON_HOURS} hours after the outlook is issued (now, or as of any instant), per hour or per day. A chance, not an announcement: it cannot know a stage announced after its newest data, or a unit that trips.`,
  derived: { "1h": true, "1d": true },
  intervals: ["1h", "1d"],
  takes: ["tz"],
  formats: ["json", "csv"],
  declines: "its hours are those of its issue (no start or end), in JSON or CSV",
  unranged: true,
  chart: {
    kind: "lines",
    // The bands behind the chances, from 0 to 1, as grid stress draws its own.
    bands: {
      unit: "probability",
      bands: OUTLOOK_BANDS.map(([name, from], i) => ({ name, from, to: OUTLOOK_BANDS[i + 1]?.[1] ?? 1 })),
    },
  },
  tool: {
    name: "outlook",
    description: `The load-shedding outlook: for each hour from the one after the newest hour with an actual load-reduction value to ${HORIZON_HOURS} hours after it is issued, the chance of load reduction (probability), its lead in hours and its band; per day (interval 1d, SAST days by default) the chance of any and the hours to expect. Issued now, or as of an instant (as_of): the same instant gives the same answer. ${CANNOT_KNOW}`,
  },
  meta: () => ({ derivation_method: `outlook_${OUTLOOK_VERSION}` }),
  statusMeta: {
    issued_at: {
      type: "string",
      description: "When the outlook was issued: as_of, or the start of this hour.",
    },
    newest_actual: {
      type: ["string", "null"],
      description: "The newest hour with an actual load-reduction value it started from; null when none.",
    },
    version: { enum: [OUTLOOK_VERSION], description: "The formula's version." },
    inputs: {
      type: "object",
      description:
        "What it read: the store as it stood at readings_as_of; how many hours ahead took their demand forecast from the demand file (week_ahead_forecast_hours) and from the 3-month forecast issue first seen at forecast_issue (forecast_issue_hours); and the fitted formula's weight in each bucket of lead (formula_weights: 1-24, 25-72, 73-168, over 168), from how it and the same hour of the last 7 days did in the 28 days before, the same-hour share having the rest.",
    },
  },
  fields: {
    "1h": [
      {
        name: "ts",
        label: "Hour",
        type: "string",
        format: "date-time",
        description: "The hour beginning, in tz (SAST by default), YYYY-MM-DDThh:mm:ss+02:00.",
      },
      PROBABILITY,
      {
        name: "lead_h",
        label: "Lead",
        type: "integer",
        unit: "h",
        minimum: 1,
        description: "Hours from the newest hour with an actual load-reduction value to this one.",
      },
      {
        name: "band",
        label: "Band",
        type: "string",
        enum: BANDS,
        description: `The grid-stress band the probability falls in: ${bandText}.`,
      },
    ],
    "1d": [
      {
        name: "date",
        label: "Day",
        type: "string",
        format: "date",
        description: "The calendar day in tz (SAST by default), YYYY-MM-DD.",
      },
      {
        ...PROBABILITY,
        label: "Chance of any load reduction",
        description:
          "The chance of load reduction in the day: its likeliest hour's (load reduction comes in blocks that hold the evening peak).",
      },
      {
        name: "expected_hours",
        label: "Hours of load reduction to expect",
        type: "number",
        unit: "h",
        minimum: 0,
        description: "The sum of the day's hourly chances: the hours of load reduction to expect.",
      },
      {
        name: "band",
        label: "Band",
        type: "string",
        enum: BANDS,
        description: "The band of the day's chance.",
      },
      {
        name: "hours",
        label: "Hours",
        type: "integer",
        minimum: 1,
        maximum: 24,
        description: "The day's hours the outlook covers: fewer than 24 on its first and last day.",
      },
    ],
  },
};
