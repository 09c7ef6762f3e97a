/**
 * The portal's files the pull knows (docs/data.md: "The portal's files"): each file's graph page,
 * under the portal's root, and its header's set of column names, by which a download is known to
 * be that file (never by its name, delimiter or column order: the portal renames and reformats).
 */
import { normalizeColumnName } from "../source/columns.ts";

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
}

const names = (...raw: string[]) => raw.map(normalizeColumnName);

/** Every file the pull can follow. */
export const PORTAL_FILES: readonly PortalFileSpec[] = [
  {
    name: "Station_Build_Up.csv",
    page: "supply-side/station-build-up-for-the-last-7-days/",
    header: names(
      "Date_Time_Hour_Beginning",
      "Thermal_Gen_Excl_Pumping_and_SCO",
      "Eskom_OCGT_SCO_Pumping",
      "Eskom_Gas_SCO_Pumping",
      "Hydro_Water_SCO_Pumping",
      "Pumped_Water_SCO_Pumping",
      "Thermal_Generation",
      "Nuclear_Generation",
      "International_Imports",
      "Eskom_OCGT_Generation",
      "Eskom_Gas_Generation",
      "Dispatchable_IPP_OCGT",
      "Hydro_Water_Generation",
      "Pumped_Water_Generation",
      "IOS_Excl_ILS_and_MLR",
      "ILS_Usage",
      "Manual_Load_Reduction_MLR",
      "Wind",
      "PV",
      "CSP",
      "Other_RE",
    ),
  },
  {
    name: "System_hourly_actual_and_forecasted_demand.csv",
    page: "demand-side/system-hourly-actual-and-forecasted-demand/",
    header: names(
      "DateTimeKey",
      "Residual Forecast",
      "RSA Contracted Forecast",
      "Residual Demand",
      "RSA Contracted Demand",
    ),
  },
  {
    name: "Hourly_Generation.csv",
    page: "renewables-performance/hourly-renewable-generation/",
    header: names("Date Time Hour Beginning", "Wind", "PV", "CSP", "Other RE"),
  },
];

/** The files pulled when PORTAL_FILES is not set. */
export const DEFAULT_PORTAL_FILES: readonly string[] = PORTAL_FILES.map((spec) => spec.name);

/** The known file of that name, or undefined. */
export function portalFile(name: string): PortalFileSpec | undefined {
  return PORTAL_FILES.find((spec) => spec.name === name);
}

const SAST_MS = 2 * 3_600_000;

/**
 * Where the portal's WordPress keeps a file it uploaded in the SAST month of `now`, and in the
 * month before: the pull's last resort when a page cannot be read.
 */
export function uploadFolderUrls(root: string, file: string, now: number): [string, string] {
  const sast = new Date(now + SAST_MS);
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
