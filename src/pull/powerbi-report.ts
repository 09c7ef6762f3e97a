/**
 * Reads the PowerBI report a portal page embeds (docs/data.md: "PowerBI reports"), for when the
 * page's CSV has stopped: from the page, the report's resource key (found anew each pull: Eskom
 * can change it) and, from the viewer, its cluster; one request for the report's model, then the
 * visual's rows a window at a time, each next window asked with the restart token of the one
 * before. Every request names the service, has a deadline, a size bound, and retries a 429 or 5xx
 * with backoff (`download.ts`); no host is asked but the viewer's and its cluster's, or
 * `POWERBI_API_URL` in their stead. The read is all or nothing: an error anywhere, on any page,
 * and nothing of it is returned; the error says which request failed and why.
 */
import { type DownloadPolicy, fetchWithRetries, DownloadError, type RequestInit } from "./download.ts";
import type { PortalFileSpec } from "./portal-files.ts";
import { TIMESTAMP_COLUMNS } from "../source/columns.ts";
import { decodeAnswer, type DecodedAnswer, PowerBiAnswerError } from "../source/powerbi-answer.ts";
import { clusterApiOf, type EmbeddedReport, embeddedReportOf } from "../source/powerbi-embed.ts";
import { queryBody, ReportModelError, type VisualQuery, visualQuery } from "../source/powerbi-query.ts";
import { reportTable, type ReportTable } from "../source/powerbi-table.ts";
import type { PortalForm } from "../source/portal-forms.ts";

/** Rows asked for in one window. */
export const WINDOW_ROWS = 500;
/** The most windows one read asks for: a report of a week of hours needs one. */
export const MAX_WINDOWS = 20;
/** The largest answer taken: a week of hours is about 100 KB; a model a few MB. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** How to reach the reports. */
export interface ReportAccess {
  readonly policy: DownloadPolicy;
  /** `POWERBI_API_URL`: the cluster's API at another address (a proxy, a test's server). */
  readonly apiUrl?: string;
  readonly onProgress?: (line: string) => void;
}

/** A report read whole. */
export interface ReportRead extends ReportTable {
  readonly report: EmbeddedReport;
  readonly visualId: string;
  readonly windows: number;
}

/** A read that failed: which request, and why. Nothing of the report is kept. */
export class ReportReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReportReadError";
  }
}

// One request's JSON; anything else (a status, HTML, a cut body) is a ReportReadError naming it.
async function askJson(what: string, url: string, init: RequestInit, access: ReportAccess): Promise<unknown> {
  access.onProgress?.(`${init.method ?? "GET"} ${url}`);
  let got;
  try {
    got = await fetchWithRetries(url, init, { ...access.policy, maxBytes: MAX_ANSWER_BYTES });
  } catch (error) {
    if (error instanceof DownloadError) throw new ReportReadError(`${what}: ${error.message}`);
    throw error;
  }
  if (got.kind !== "body") {
    const status = got.kind === "status" ? got.status : 304;
    const hint =
      status === 401 || status === 403 || status === 404 ? " (the report's key may have changed)" : "";
    throw new ReportReadError(`${what}: ${url} answered HTTP ${status}${hint}`);
  }
  const text = got.body.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw new ReportReadError(
      `${what}: the answer is not JSON (it begins ${JSON.stringify(text.trimStart().slice(0, 40))})`,
    );
  }
}

// The cluster's API root: POWERBI_API_URL, or the one the report's viewer names.
async function apiRoot(report: EmbeddedReport, access: ReportAccess): Promise<string> {
  if (access.apiUrl !== undefined) return access.apiUrl.replace(/\/+$/, "");
  access.onProgress?.(`GET ${report.viewUrl}`);
  let got;
  try {
    got = await fetchWithRetries(report.viewUrl, { headers: { Accept: "text/html" } }, access.policy);
  } catch (error) {
    if (error instanceof DownloadError) throw new ReportReadError(`the report's viewer: ${error.message}`);
    throw error;
  }
  const api = got.kind === "body" ? clusterApiOf(got.body.toString("utf8")) : undefined;
  if (api === undefined)
    throw new ReportReadError(`the report's viewer ${report.viewUrl} names no PowerBI cluster`);
  return api;
}

/** What the pull reads of a file's report: its series, named as the file's header names them. */
export function wantedOf(spec: PortalFileSpec): {
  category: string[];
  series: string[];
  header: readonly string[];
} {
  const form = spec.form as PortalForm;
  const stamps = form.header.filter((name) => TIMESTAMP_COLUMNS.has(name));
  const series = form.header.filter((name) => !TIMESTAMP_COLUMNS.has(name));
  return { category: stamps, series, header: [stamps[0]!, ...series] };
}

// Every window of the visual's rows, each after the restart token of the one before.
async function readWindows(
  api: string,
  headers: Record<string, string>,
  visual: VisualQuery,
  access: ReportAccess,
): Promise<DecodedAnswer[]> {
  const answers: DecodedAnswer[] = [];
  let tokens: readonly unknown[] | undefined;
  for (let window = 1; ; window++) {
    if (window > MAX_WINDOWS)
      throw new ReportReadError(
        `the report's rows did not end within ${MAX_WINDOWS} windows of ${WINDOW_ROWS}`,
      );
    const body = JSON.stringify(queryBody(visual, WINDOW_ROWS, tokens));
    const init = {
      method: "POST" as const,
      headers: { ...headers, "Content-Type": "application/json" },
      body,
    };
    const raw = await askJson(
      `window ${window} of the report's rows`,
      `${api}/public/reports/querydata?synchronous=true`,
      init,
      access,
    );
    let answer: DecodedAnswer;
    try {
      answer = decodeAnswer(raw);
    } catch (error) {
      if (error instanceof PowerBiAnswerError)
        throw new ReportReadError(`window ${window} of the report's rows: ${error.message}`);
      throw error;
    }
    answers.push(answer);
    if (answer.complete) break;
    tokens = answer.restartTokens; // sent back whole, as the answer gave it
    if (tokens === undefined || tokens.length === 0)
      throw new ReportReadError(`window ${window} of the report's rows was cut without a restart token`);
  }
  return answers;
}

/** Reads the report `pageHtml` embeds, as the rows of `spec`'s file; throws a ReportReadError. */
export async function readReport(
  pageHtml: string,
  spec: PortalFileSpec,
  access: ReportAccess,
): Promise<ReportRead> {
  const report = embeddedReportOf(pageHtml);
  if (report === undefined) throw new ReportReadError(`the page of ${spec.name} embeds no PowerBI report`);
  const api = await apiRoot(report, access);
  const headers = { "X-PowerBI-ResourceKey": report.resourceKey, Accept: "application/json" };
  const modelUrl = `${api}/public/reports/${report.resourceKey}/modelsAndExploration?preferReadOnlySession=true`;
  const model = await askJson("the report's model", modelUrl, { headers }, access);
  const wanted = wantedOf(spec);
  let visual;
  try {
    visual = visualQuery(model, wanted);
  } catch (error) {
    if (error instanceof ReportModelError) throw new ReportReadError(`the report's model: ${error.message}`);
    throw error;
  }
  const answers = await readWindows(api, headers, visual, access);
  let table: ReportTable;
  try {
    table = reportTable(answers, visual, wanted.header);
  } catch (error) {
    if (error instanceof PowerBiAnswerError) throw new ReportReadError(`the report's rows: ${error.message}`);
    throw error;
  }
  return { ...table, report, visualId: visual.visualId, windows: answers.length };
}
