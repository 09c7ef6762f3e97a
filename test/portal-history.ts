/**
 * The real downloads of the portal (../shared/data/eskom/portal_history/, the 2023-02-21 snapshot
 * and the 2026 build-up), and their replay, day after day, through a loopback portal with the clock
 * at each download's time: for the tests that read what the pulls made of them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PORTAL_FILES } from "../src/pull/portal-files.ts";
import { pullPortal, type PullResult } from "../src/pull/pull.ts";
import { REAL_DATA_DIR } from "./helpers.ts";
import type { PortalStandIn } from "./portal-stand-in.ts";

export const HISTORY = join(REAL_DATA_DIR, "portal_history");
const HOUR = 3_600_000;

export const BUILD_UP = "Station_Build_Up.csv";
export const YESTERDAY = "Station_Build_Up_Yesterday.csv";
export const DEMAND = "System_hourly_actual_and_forecasted_demand.csv";
export const RENEWABLES = "Hourly_Generation.csv";
export const CAPACITY = "System_hourly_demand_and_available_capacity.csv";
export const OUTAGES = "Hourly_UCLF_and_OCLF_Trend.csv";
export const PUMPED = "Pumped_storage_gen_hours_gas_generation_and_manual_load_reduction.csv";
export const FORECAST = "Official_hourly_forecast_for_next_3_months.csv";
/** The portal's eight files, in the order a pull takes them. */
export const FILES = [BUILD_UP, YESTERDAY, DEMAND, RENEWABLES, CAPACITY, OUTAGES, PUMPED, FORECAST];

/** One download of the portal: when, and the bytes of each of the three files it holds. */
export interface Download {
  readonly name: string;
  readonly at: number;
  readonly files: ReadonlyMap<string, Buffer>;
}

function filesIn(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (FILES.includes(entry.name)) out.set(entry.name, readFileSync(path));
    }
  };
  walk(dir);
  return out;
}

// Folder names are the download's UTC time: 2023_04_30T09_42_19_588183.
export function downloads(): Download[] {
  const list: Download[] = [];
  if (!existsSync(HISTORY)) return list;
  for (const name of readdirSync(HISTORY).filter((n) => /^\d{4}_/.test(n))) {
    const [, y, mo, d, h, mi, s] = /^(\d{4})_(\d\d)_(\d\d)T(\d\d)_(\d\d)_(\d\d)/.exec(name)!;
    const at = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!);
    list.push({ name, at, files: filesIn(join(HISTORY, name)) });
  }
  list.push({
    name: "portal_snapshot_2023-02-21",
    at: Date.parse("2023-02-21T12:00:01Z"),
    files: filesIn(join(REAL_DATA_DIR, "portal_snapshot_2023-02-21")),
  });
  // The 2026 build-up: values to 2026-06-13 23:00 SAST, as the portal publishes them by about 04:09 UTC.
  list.push({
    name: "portal_2026",
    at: Date.parse("2026-06-14T04:09:00Z"),
    files: filesIn(join(REAL_DATA_DIR, "portal_2026")),
  });
  return list.sort((a, b) => a.at - b.at);
}

// ---- The recomputation: written from SOURCE.md's description of the files, nothing imported. ----

// The downloads of 2022-23 hold the hourly files and the forecast: no weekly or monthly file.
export const SPECS = PORTAL_FILES.filter((spec) => spec.form.target !== "periods");
export const POLICY = { timeoutMs: 5000, attempts: 2, backoffMs: 5, maxBackoffMs: 20 };

/**
 * Pulls each of `list` in turn into `dir` through `stand`, with the clock at its time: each
 * download uploaded to its month's folder (one renamed as a WordPress re-upload is), the build-up
 * page down on the snapshot's day.
 */
export async function replayDownloads(
  stand: PortalStandIn,
  dir: string,
  list: readonly Download[],
): Promise<{ download: Download; result: PullResult }[]> {
  const results: { download: Download; result: PullResult }[] = [];
  for (const download of list) {
    const month = new Date(download.at + 2 * HOUR).toISOString().slice(0, 7).replace("-", "/");
    for (const [file, body] of download.files) {
      // Each download is uploaded to its month's folder; one is renamed as a WordPress re-upload is.
      const name = download.name.startsWith("2023_04_30") ? file.replace(".csv", "-1.csv") : file;
      // An error page is served as the portal served it: under the CSV's name, with status 200.
      stand.publish(file, body, { folder: month, name });
    }
    // On the snapshot's day the build-up page is down: the pull falls back to the upload folders.
    const page = stand.pagePath("Station_Build_Up.csv");
    const down = download.name === "portal_snapshot_2023-02-21";
    stand.on(page, down ? (_q, r) => (r.writeHead(503).end("busy"), true) : undefined);
    const result = await pullPortal({
      dir,
      root: stand.root,
      files: SPECS,
      policy: POLICY,
      now: () => download.at,
    });
    results.push({ download, result });
  }
  return results;
}
