/**
 * The portal and its PowerBI cluster as the pull met them in 2026, for the PowerBI tests: the real
 * January 2026 page of "System hourly demand and available capacity" (its iframe restored to the
 * viewer address its saved viewer holds) on the portal stand-in, the real demand file beside it,
 * and a loopback cluster (`powerbi-stand-in.ts`) answering with the real capacity CSV's rows. The
 * capacity CSV lives or dies on demand.
 */
import type { TestContext } from "node:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { portalFile } from "../src/pull/portal-files.ts";
import { pullPortal } from "../src/pull/pull.ts";
import { embeddedReportOf } from "../src/source/powerbi-embed.ts";
import { REAL_DATA_DIR, skipUnless } from "./helpers.ts";
import { type PortalStandIn, startPortal } from "./portal-stand-in.ts";
import { type PowerBiStandIn, type ReportRow, startPowerBi } from "./powerbi-stand-in.ts";

export const JANUARY = join(REAL_DATA_DIR, "portal_2026", "2026-01-31");
export const SKIP = skipUnless(
  existsSync(JANUARY),
  `the portal's 2026 pages are not at ${JANUARY}; these tests need ../shared/data/eskom beside the checkout`,
);
export const CAPACITY = "System_hourly_demand_and_available_capacity.csv";
export const DEMAND = "System_hourly_actual_and_forecasted_demand.csv";
export const PAGES = join(JANUARY, "pages");
export const VIEWER = join(
  PAGES,
  "System hourly demand and available capacity - Eskom Data Portal_files",
  "view.html",
);
/** 2026-01-31 06:09 SAST: the day the files were saved, after the portal's daily batch. */
export const SAVED = Date.parse("2026-01-31T04:09:00Z");
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export const read = (path: string) => readFileSync(path, "utf8");

/** The real page as the portal serves it: its iframe shows the viewer its saved copy names (or `key`'s). */
export function livePage(key?: string): string {
  const report = embeddedReportOf(read(VIEWER))!;
  const token = Buffer.from(JSON.stringify({ k: key, t: report.tenant, c: 8 })).toString("base64");
  const viewUrl = key === undefined ? report.viewUrl : `https://app.powerbi.com/view?r=${token}`;
  return read(join(PAGES, "system-hourly-demand-and-available-capacity.html")).replace(
    /(<iframe\b[^>]*\bsrc=")[^"]*(")/,
    `$1${viewUrl}$2`,
  );
}

/** The real CSV's rows: each hour with values, then a day of the hours to come, all blank. */
export function csvRows(): ReportRow[] {
  const lines = read(join(JANUARY, CAPACITY)).trim().split("\n").slice(1);
  const rows = lines.map((line): ReportRow => {
    const [stamp, ...cells] = line.trim().split(",");
    return [stamp!, ...cells.map((c) => (c === "" ? null : Number(c)))];
  });
  const blank = rows.findIndex((row) => row[1] === null);
  return rows.slice(0, blank + 24);
}

/** The real capacity CSV's text (or `file`'s), up to (not including) the SAST stamp `before` when given. */
export function csvText(before?: string, file = CAPACITY): string {
  const [header, ...lines] = read(join(JANUARY, file)).trim().split("\n");
  const kept = before === undefined ? lines : lines.filter((line) => line.slice(0, 19) < before);
  return [header, ...kept].join("\n") + "\n";
}

/** The CSV's value of a column at a SAST stamp. */
export function csvValue(stamp: string, column: number): number {
  return csvRows().find((row) => row[0] === stamp)![column] as number;
}

/** A record's UTC `ts` as the CSV's SAST stamp. */
export const stampOf = (ts: string) =>
  new Date(Date.parse(ts) + 2 * HOUR).toISOString().slice(0, 19).replace("T", " ");

/** The portal and its cluster; the capacity CSV dead (as since March 2026) until `revive`. */
export interface Stands {
  readonly portal: PortalStandIn;
  readonly powerbi: PowerBiStandIn;
  readonly key: string;
  /** The page keeps its graph and loses its link; the upload answers 404. */
  kill(): void;
  /** Publishes `csv` as the capacity file again, linked from its page. */
  revive(csv: string): void;
}

/** The stand-ins, with the capacity CSV given (`csv`) or dead, and the demand file's text (`demand`, the real one's by default). */
export async function stands(
  t: TestContext,
  options: { csv?: string; demand?: string } = {},
): Promise<Stands> {
  const portal = await startPortal(t);
  portal.publish(DEMAND, options.demand ?? readFileSync(join(JANUARY, DEMAND)), { folder: "2026/01" });
  const key = embeddedReportOf(livePage())!.resourceKey;
  const powerbi = await startPowerBi(t, key, csvRows());
  const uploads = `/wp-content/uploads/2026/01/${CAPACITY}`;
  const kill = () => {
    const page = livePage();
    // The real page's CSV link is another host's: the pull finds no link on the portal's.
    portal.on(portal.pagePath(CAPACITY), (_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html; charset=UTF-8" }).end(page);
      return true;
    });
    portal.on(uploads, (_req, res) => (res.writeHead(404).end("Not found"), true));
  };
  const revive = (csv: string) => {
    portal.on(portal.pagePath(CAPACITY), undefined);
    portal.on(uploads, undefined);
    portal.publish(CAPACITY, csv, { folder: "2026/01" });
  };
  if (options.csv === undefined) kill();
  else revive(options.csv);
  return { portal, powerbi, key, kill, revive };
}

/**
 * One pull of the two files at `now`, reading reports through the stand-in's cluster unless
 * `enabled` is false; each request tried `attempts` times.
 */
export function pull(
  dir: string,
  stand: Stands,
  now = SAVED,
  options: { enabled?: boolean; attempts?: number } = {},
) {
  return pullPortal({
    dir,
    root: stand.portal.root,
    files: [DEMAND, CAPACITY].map((name) => portalFile(name)!),
    policy: { timeoutMs: 5000, attempts: options.attempts ?? 1, backoffMs: 1, maxBackoffMs: 1 },
    now: () => now,
    powerbi: { enabled: options.enabled ?? true, apiUrl: stand.powerbi.url },
  });
}
