/**
 * The portal's files the pull knows (docs/data.md: "The portal's files"): each file's graph page,
 * under the portal's root, and its form (`source/portal-forms.ts`): the header's set of column
 * names by which a download is known to be that file, and where its rows go.
 */
import { SAST_OFFSET_MS } from "../time.ts";
import { type PeriodForm, periodForm } from "../source/period-forms.ts";
import { type PortalForm, portalForm } from "../source/portal-forms.ts";

/** The portal's root; every graph page is under it. */
export const DEFAULT_PORTAL_URL = "https://www.eskom.co.za/dataportal/";

/** One file the portal publishes. */
export interface PortalFileSpec {
  /** The file's name as the portal first published it, and the pull's name for it. */
  readonly name: string;
  /** The graph page that links it, relative to the portal's root. */
  readonly page: string;
  /** Its header's column names, normalized to snake_case. */
  readonly header: readonly string[];
  /** What it is read as: hourly rows, or a table of weeks or months. */
  readonly form: PortalForm | PeriodForm;
  /** A second source of another file's columns: it fills hours that file did not give. */
  readonly fill?: true;
  /** How often the portal publishes it, in hours: daily for the hourly files, weekly or monthly. */
  readonly cadenceHours: number;
}

/** How often a file of weeks or months gains a period, in hours: a week, or the longest month. */
const PERIOD_CADENCE_HOURS = { week: 7 * 24, month: 31 * 24 } as const;

const periodFile = (page: string, name: string): PortalFileSpec => {
  const form = periodForm(name);
  return { name, page, header: form.header, form, cadenceHours: PERIOD_CADENCE_HOURS[form.grain] };
};

const file = (page: string, name: string, as = name, fill?: true): PortalFileSpec => {
  const form = portalForm(as);
  return { name, page, header: form.header, form, cadenceHours: 24, ...(fill ? { fill } : {}) };
};

/**
 * Every file the pull can follow, in the order it pulls them: the build-up of yesterday after the
 * one of the last 7 days, which it backs up when that one is missing or refused.
 */
export const PORTAL_FILES: readonly PortalFileSpec[] = [
  file("supply-side/station-build-up-for-the-last-7-days/", "Station_Build_Up.csv"),
  file(
    "supply-side/station-build-up-for-yesterday/",
    "Station_Build_Up_Yesterday.csv",
    "Station_Build_Up.csv",
    true,
  ),
  file(
    "demand-side/system-hourly-actual-and-forecasted-demand/",
    "System_hourly_actual_and_forecasted_demand.csv",
  ),
  file("renewables-performance/hourly-renewable-generation/", "Hourly_Generation.csv"),
  file(
    "demand-side/system-hourly-demand-and-available-capacity/",
    "System_hourly_demand_and_available_capacity.csv",
  ),
  file("outage-performance/hourly-uclfoclf-trend/", "Hourly_UCLF_and_OCLF_Trend.csv"),
  file(
    "supply-side/pumped-storage-generating-hours-gas-generation-and-manual-load-reduction/",
    "Pumped_storage_gen_hours_gas_generation_and_manual_load_reduction.csv",
  ),
  // The page's address is misspelt on the portal ("forcast").
  file(
    "demand-side/official-hourly-forcast-for-next-3-months/",
    "Official_hourly_forecast_for_next_3_months.csv",
  ),
  periodFile(
    "outage-performance/weekly-eskom-generation-capacity-breakdown/",
    "Weekly_Eskom_generation_capacity_breakdown.csv",
  ),
  periodFile("outage-performance/weekly-unplanned-outages/", "Weekly_unplanned_outages.csv"),
  periodFile(
    "outage-performance/monthly-eskom-generation-capacity-breakdown/",
    "Monthly_Eskom_generation_capacity_breakdown.csv",
  ),
];

/** The files pulled when PORTAL_FILES is not set. */
export const DEFAULT_PORTAL_FILES: readonly string[] = PORTAL_FILES.map((spec) => spec.name);

/** The known file of that name, or undefined. */
export function portalFile(name: string): PortalFileSpec | undefined {
  return PORTAL_FILES.find((spec) => spec.name === name);
}

/**
 * Where the portal's WordPress keeps a file it uploaded in the SAST month of `now`, and in the
 * month before: the pull's last resort when a page cannot be read.
 */
export function uploadFolderUrls(root: string, file: string, now: number): [string, string] {
  const sast = new Date(now + SAST_OFFSET_MS);
  const year = sast.getUTCFullYear();
  const month = sast.getUTCMonth(); // 0-based
  const url = (y: number, m: number) =>
    new URL(`wp-content/uploads/${y}/${String(m + 1).padStart(2, "0")}/${file}`, root).href;
  return [url(year, month), month === 0 ? url(year - 1, 11) : url(year, month - 1)];
}

/**
 * The portal's root from a `PORTAL_URL`: with a final `/`. Releases before 1.4 took the upload
 * folder (`…/dataportal/wp-content/uploads`); such a value still works, as the root above it, and
 * `note` says what to set instead.
 */
export function portalRoot(value: string): { root: string; note?: string } {
  const url = new URL(value);
  url.search = "";
  url.hash = "";
  const at = url.pathname.indexOf("/wp-content/uploads");
  if (at >= 0) {
    url.pathname = url.pathname.slice(0, at + 1);
    return {
      root: url.href,
      note: `PORTAL_URL "${value}" is the portal's upload folder; the pull now follows the portal's pages, so it reads them under ${url.href} (set PORTAL_URL=${url.href})`,
    };
  }
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return { root: url.href };
}
