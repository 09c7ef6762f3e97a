/**
 * The portal's weekly and monthly availability files, generated for the sample store from the
 * sample's own hours (docs/data.md: "Sample data"), so that `make serve` shows the weekly and
 * monthly datasets on figures that agree with its hourly availability. Written in the portal's
 * 2026 forms: CRLF line ends, percentages to two decimals that add up to 100, MW to three, the
 * month to come as an empty row.
 */
import { groupBy } from "../group-by.ts";
import type { SampleOutages } from "./sample-export.ts";

const DAY_MS = 86_400_000;

/** One sample hour: its SAST wall clock (as if UTC, ms) and its outages. */
export interface SampleHour extends SampleOutages {
  readonly local: number;
}

/** The three files' texts, by the portal's name. */
export type SamplePeriodFiles = Readonly<Record<string, string>>;

const pad = (n: number) => String(n).padStart(2, "0");
const day = (local: number) => new Date(local).toISOString().slice(0, 10);
const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

// The Monday (as if UTC, ms) of the week holding `local`; 1970-01-01 was a Thursday.
const monday = (local: number) => {
  const days = Math.floor(local / DAY_MS);
  return (days - ((days + 3) % 7)) * DAY_MS;
};

// Eskom's financial year of a week, `2025-26`: that of its Thursday (April to March).
function financialYear(weekStart: number): string {
  const thursday = new Date(weekStart + 3 * DAY_MS);
  const first = thursday.getUTCMonth() >= 3 ? thursday.getUTCFullYear() : thursday.getUTCFullYear() - 1;
  return `${first}-${pad((first + 1) % 100)}`;
}

// The period's capability loss factors, to two decimals, and the EAF that makes them 100.
function shares(hours: readonly SampleHour[]): [number, number, number, number] {
  const mean = (of: (h: SampleHour) => number) =>
    hours.reduce((sum, h) => sum + of(h) / h.installed, 0) / hours.length;
  const [pclf, uclf, oclf] = [mean((h) => h.pclf), mean((h) => h.uclf), mean((h) => h.oclf)].map((s) =>
    round(100 * s, 2),
  ) as [number, number, number];
  return [round(100 - pclf - uclf - oclf, 2), pclf, uclf, oclf];
}

const csv = (lines: readonly string[]) => lines.join("\r\n") + "\r\n";

/**
 * The files a portal download would give at the end of `hours` (consecutive, oldest first): every
 * week and month that begins within them, the last one as far as they reach.
 */
export function samplePeriodFiles(hours: readonly SampleHour[]): SamplePeriodFiles {
  const first = hours[0]!.local;
  const weeks = [...groupBy(hours, (h) => monday(h.local))].filter(([start]) => start >= first);
  const weekly = ["Week Start Date,Weekly EAF,Weekly PCLF,Weekly UCLF,Weekly OCLF,Year,Fin_Year"];
  const outages = ["Week_min_DateKey,Min of UCLF+OCLF,Average of UCLF+OCLF,Max of UCLF+OCLF"];
  for (const [start, group] of weeks) {
    const [eaf, pclf, uclf, oclf] = shares(group);
    const year = new Date(start).getUTCFullYear();
    weekly.push(`${day(start)},${eaf},${pclf},${uclf},${oclf},${year},${financialYear(start)}`);
    const lost = group.map((h) => h.uclf + h.oclf);
    const mean = lost.reduce((a, b) => a + b, 0) / lost.length;
    outages.push(
      `${day(start)},${round(Math.min(...lost), 3)},${round(mean, 3)},${round(Math.max(...lost), 3)}`,
    );
  }
  const monthOf = (local: number) => {
    const d = new Date(local);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  };
  const months = [...groupBy(hours, (h) => monthOf(h.local))].filter(([start]) => start >= first);
  const monthly = ["YEAR_MONTH,EAF,PCLF,UCLF,OCLF"];
  const yearMonth = (start: number) => day(start).slice(0, 7).replace("-", "");
  for (const [start, group] of months) monthly.push(`${yearMonth(start)},${shares(group).join(",")}`);
  const next = new Date(monthOf(hours.at(-1)!.local));
  monthly.push(`${yearMonth(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1))},,,,`);
  return {
    "Weekly_Eskom_generation_capacity_breakdown.csv": csv(weekly),
    "Weekly_unplanned_outages.csv": csv(outages),
    "Monthly_Eskom_generation_capacity_breakdown.csv": csv(monthly),
  };
}
