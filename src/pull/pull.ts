/**
 * `pull`: downloads the portal's live files and ingests what is new. Each file is checked before
 * it can touch the store (a whole body, not empty, not an HTML page, the header row it had last
 * time, then every row as `ingest` checks it); a file that fails is reported with its URL and the
 * store keeps what it had, while the other files still go in.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestFiles } from "../ingest/ingest.ts";
import { download, DownloadError, type DownloadPolicy, type Validators } from "./download.ts";
import { portalUrls } from "./portal-urls.ts";
import {
  type FileState,
  markPullSucceeded,
  readPullState,
  recordPullRun,
  writePullState,
} from "./pull-state.ts";

/** What happened to one file. */
export interface FileOutcome {
  readonly file: string;
  /** The URL answered from, or the last one tried. */
  readonly url: string;
  readonly result: "not-modified" | "ingested" | "failed";
  readonly hoursAdded?: number;
  readonly hoursRevised?: number;
  readonly placeholdersSkipped?: number;
  readonly blankSkipped?: number;
  /** Days of generated sample data the ingest removed before storing this real file. */
  readonly sampleDaysRemoved?: number;
  /** Why it failed. */
  readonly error?: string;
}

export interface PullOptions {
  readonly dir: string;
  /** The portal's upload folder (`PORTAL_URL`). */
  readonly baseUrl: string;
  readonly files: readonly string[];
  readonly policy: DownloadPolicy;
  readonly now?: () => number;
  /** Progress lines, for stderr. */
  readonly onProgress?: (line: string) => void;
}

/** Refused content; the message is for the operator, and names the URL. */
class Refused extends Error {}

// The header row, without a byte-order mark or line end.
function headerOf(text: string): string {
  const end = text.indexOf("\n");
  return (end === -1 ? text : text.slice(0, end)).replace(/^\uFEFF/, "").replace(/\r$/, "");
}

function check(url: string, body: Buffer, contentType: string, known: FileState | undefined): string {
  if (body.length === 0) throw new Refused(`${url} answered with an empty body`);
  const text = body.toString("utf8");
  if (/html/i.test(contentType) || /^\s*</.test(text)) {
    throw new Refused(`${url} answered with an HTML page (the portal's error page?), not CSV`);
  }
  const header = headerOf(text);
  if (known !== undefined && known.header !== header) {
    throw new Refused(
      `${url} changed its header row; refusing it until checked. Was: "${known.header}". Now: "${header}"`,
    );
  }
  return text;
}

// Downloads a file from this month's folder, or last month's when this month's is not there yet.
async function fetchFile(options: PullOptions, file: string, known: FileState | undefined) {
  const urls = portalUrls(options.baseUrl, file, (options.now ?? Date.now)());
  for (const [i, url] of urls.entries()) {
    const validators: Validators = known?.url === url ? known : {};
    options.onProgress?.(`${file}: GET ${url}`);
    const got = await download(url, validators, options.policy);
    if (got.kind === "status" && got.status === 404 && i === 0) continue;
    if (got.kind === "status") throw new Refused(`${url} answered HTTP ${got.status}`);
    return { url, got };
  }
  throw new Refused(`${urls[1]} answered HTTP 404, as did ${urls[0]}`);
}

// Ingests one checked file; what it added and revised, or the ingest's refusal.
function ingestText(options: PullOptions, file: string, url: string, text: string) {
  const folder = mkdtempSync(join(tmpdir(), "gds-pull-"));
  try {
    const path = join(folder, file);
    writeFileSync(path, text);
    const summary = ingestFiles([path], { dir: options.dir, now: options.now });
    if (summary.failures.length > 0) {
      throw new Refused(`${url}: ${summary.failures.map((f) => f.message).join("; ")}`);
    }
    return summary;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function pullFile(
  options: PullOptions,
  file: string,
  state: Record<string, FileState>,
): Promise<FileOutcome> {
  const known = state[file];
  let url = known?.url ?? "";
  try {
    const fetched = await fetchFile(options, file, known);
    url = fetched.url;
    if (fetched.got.kind === "not-modified") return { file, url, result: "not-modified" };
    if (fetched.got.kind !== "body") throw new Refused(`${url} gave no body`);
    const { body, contentType, validators } = fetched.got;
    const text = check(url, body, contentType, known);
    const summary = ingestText(options, file, url, text);
    state[file] = {
      url,
      ...validators,
      header: headerOf(text),
      ingested: new Date((options.now ?? Date.now)()).toISOString(),
    };
    return {
      file,
      url,
      result: "ingested",
      hoursAdded: summary.hoursAdded,
      hoursRevised: summary.hoursRevised,
      placeholdersSkipped: summary.skipped.placeholder,
      blankSkipped: summary.skipped.blank,
      ...(summary.sampleDaysRemoved > 0 ? { sampleDaysRemoved: summary.sampleDaysRemoved } : {}),
    };
  } catch (error) {
    if (error instanceof Refused || error instanceof DownloadError) {
      return { file, url, result: "failed", error: error.message };
    }
    throw error;
  }
}

/** Pulls every file; `ok` when each was current or ingested. */
export async function pullPortal(options: PullOptions): Promise<{ ok: boolean; files: FileOutcome[] }> {
  const state = readPullState(options.dir);
  const files: FileOutcome[] = [];
  for (const file of options.files) {
    const outcome = await pullFile(options, file, state.files);
    options.onProgress?.(describe(outcome));
    files.push(outcome);
  }
  if (files.some((f) => f.result === "ingested")) writePullState(options.dir, state);
  const ok = files.every((f) => f.result !== "failed");
  if (ok) markPullSucceeded(options.dir, (options.now ?? Date.now)());
  recordPullRun(options.dir, ok ? "ok" : "failed");
  return { ok, files };
}

/** One line for a file's outcome. */
export function describe(outcome: FileOutcome): string {
  if (outcome.result === "not-modified") return `${outcome.file}: not modified`;
  if (outcome.result === "failed") return `${outcome.file}: FAILED: ${outcome.error}`;
  const removed =
    outcome.sampleDaysRemoved === undefined
      ? ""
      : `removed ${outcome.sampleDaysRemoved} days of sample data (generated, not Eskom's) first, `;
  return (
    `${outcome.file}: ${removed}${outcome.hoursAdded} hours added, ${outcome.hoursRevised} hours revised, ` +
    `${outcome.placeholdersSkipped} placeholders skipped, ${outcome.blankSkipped} blank rows skipped`
  );
}
