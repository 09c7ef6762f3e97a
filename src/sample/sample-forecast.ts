/**
 * Eskom's 3-month demand forecast, generated for the sample store (docs/data.md: "Sample data"),
 * so that `/api/v1/forecasts/demand` has issues to show under `make serve`. Like the portal's
 * file, each issue is published once a day at 04:09 UTC and forecasts 91 days (2,184 hours) from
 * 00:00 SAST of its day, in the portal's 2026 form (`,`, `.`, 24-hour SAST stamps). Its forecast
 * is the sample model's expected hour (`expectedHour`), off by an error of its own that grows
 * with the lead time (about 1.5% a day ahead, 4% three months ahead), so issues differ where
 * they overlap, as real ones do.
 */
import { DAY_MS, HOUR_MS, SAST_OFFSET_MS } from "../time.ts";
import { expectedHour, gaussFrom, prng, when } from "./sample-model.ts";

/** The portal's name of the file. */
export const SAMPLE_FORECAST_NAME = "Official_hourly_forecast_for_next_3_months.csv";
/** When the portal publishes each day, in ms after 00:00 UTC. */
const PUBLISHED_AT_MS = (4 * 60 + 9) * 60_000;
/** Hours each issue forecasts. */
const ISSUE_HOURS = 2_184;
const HEADER = "Date_Time_Hour_Beginning,RSA Contracted Forecast,Residual Forecast";

/** One generated issue: its file's text, and when it was published. */
export interface SampleForecastIssue {
  readonly receivedAt: number;
  readonly text: string;
}

const fmt = (value: number) => (Math.round(value * 1000) / 1000).toFixed(3);

// `YYYY-MM-DD HH:00:00` for an hour written in SAST as if it were UTC.
const sastStamp = (local: number) => new Date(local).toISOString().slice(0, 19).replace("T", " ");

// The text of the issue published at `receivedAt`; `seed` makes its error its own.
function issueText(receivedAt: number, seed: number): string {
  const random = prng(seed);
  const gauss = gaussFrom(random);
  // An error that wanders from hour to hour and widens with the lead time, and a level of its own.
  const level = 0.01 * gauss();
  let wander = 0;
  const firstLocal = Math.floor((receivedAt + SAST_OFFSET_MS) / DAY_MS) * DAY_MS;
  const lines = [HEADER];
  for (let h = 0; h < ISSUE_HOURS; h++) {
    const local = firstLocal + h * HOUR_MS;
    wander = 0.97 * wander + 0.004 * gauss();
    const spread = 1 + (2 * h) / ISSUE_HOURS;
    const { contracted, totalRe } = expectedHour(when(local));
    const forecast = contracted * (1 + spread * (level + wander));
    lines.push(`${sastStamp(local)},${fmt(forecast)},${fmt(forecast - totalRe)}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * The issues of the last `days` days up to `now`, oldest first: one a day, each published at
 * 04:09 UTC (today's only once that time has passed).
 */
export function generateSampleForecastIssues(now: number, days = 14, seed = 20250101): SampleForecastIssue[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS + PUBLISHED_AT_MS;
  const newest = today <= now ? today : today - DAY_MS;
  return Array.from({ length: days }, (_, i) => {
    const receivedAt = newest - (days - 1 - i) * DAY_MS;
    return { receivedAt, text: issueText(receivedAt, seed + Math.floor(receivedAt / DAY_MS)) };
  });
}
