/**
 * Finds and downloads one of the portal's files. The file's graph page is read first, and its CSV
 * link followed; when the page cannot be read (or links nothing that answers), the link that
 * worked last time is tried, then the WordPress upload folder of this SAST month and of the last.
 * The link that was remembered gets a conditional request (its ETag and Last-Modified).
 */
import { download, DownloadError, type Download, type DownloadPolicy } from "./download.ts";
import { csvLinkOf } from "./page-link.ts";
import { type PortalFileSpec, uploadFolderUrls } from "./portal-files.ts";
import type { FileState } from "./pull-state.ts";

/** Where a download came from, and what it got. */
export interface Located {
  readonly page: string;
  /** The page's HTTP status, or null when it did not answer. */
  readonly pageStatus: number | null;
  /** The page's HTML, when it answered with a page (its embedded PowerBI report is found there). */
  readonly pageHtml?: string;
  /** The URL that answered with the file (or 304), or null when none did. */
  readonly link: string | null;
  readonly got: Extract<Download, { kind: "body" | "not-modified" }> | undefined;
  /** Each URL that failed, and how: for the operator. */
  readonly tried: readonly string[];
  /** Whether no server answered at all: the portal's host is unreachable. */
  readonly unreachable: boolean;
  /**
   * Whether the file is gone: its page answered (or is gone too), and the CSV it links, if any,
   * and every other URL tried answered 404 or 410. Nothing failed on the way: the file is not there.
   */
  readonly gone: boolean;
}

/** How to reach the portal. */
export interface PortalAccess {
  readonly root: string;
  readonly policy: DownloadPolicy;
  readonly now: () => number;
  readonly onProgress?: (line: string) => void;
}

// One GET; a status other than 2xx or 304, or a download that failed, as a line for the operator.
async function fetchUrl(url: string, known: FileState, policy: DownloadPolicy, accept?: string) {
  const validators = known.link === url ? known : {};
  try {
    const got = await download(url, validators, policy, accept);
    if (got.kind === "status") return { problem: `${url} answered HTTP ${got.status}`, status: got.status };
    return { got, status: got.kind === "body" ? 200 : 304 };
  } catch (error) {
    if (!(error instanceof DownloadError)) throw error;
    return { problem: error.message, status: error.status ?? null };
  }
}

// The page's CSV link, or why there is none.
async function readPage(access: PortalAccess, page: string) {
  const answer = await fetchUrl(page, {}, access.policy, "text/html, */*;q=0.5");
  if (answer.got?.kind !== "body") {
    return { status: answer.status, problem: answer.problem ?? `${page} answered HTTP 304` };
  }
  const html = answer.got.body.toString("utf8");
  const link = csvLinkOf(html, page);
  if (link === undefined)
    return { status: answer.status, html, problem: `${page} links no .csv file on its host` };
  return { status: answer.status, html, link };
}

/** Finds and downloads `spec`'s file; `known` is what was remembered of it. */
export async function locate(access: PortalAccess, spec: PortalFileSpec, known: FileState): Promise<Located> {
  const page = new URL(spec.page, access.root).href;
  access.onProgress?.(`${spec.name}: GET ${page}`);
  const read = await readPage(access, page);
  const tried: string[] = [];
  if (read.problem !== undefined) tried.push(read.problem);
  if (read.status === null) {
    // No server answered: the other URLs are on the same host.
    return {
      page,
      pageStatus: null,
      link: null,
      got: undefined,
      tried,
      unreachable: true,
      gone: false,
    };
  }
  const pageHtml = read.html === undefined ? {} : { pageHtml: read.html };
  const candidates = [
    ...(read.link === undefined ? [] : [read.link]),
    ...(known.link === undefined ? [] : [known.link]),
    ...uploadFolderUrls(access.root, spec.name, access.now()),
  ].filter((url, i, all) => all.indexOf(url) === i);
  let gone = read.status !== null && (read.status < 300 || read.status === 404 || read.status === 410);
  for (const link of candidates) {
    access.onProgress?.(`${spec.name}: GET ${link}`);
    const answer = await fetchUrl(link, known, access.policy);
    if (answer.got !== undefined) {
      const found = { page, pageStatus: read.status, ...pageHtml, link, got: answer.got, tried };
      return { ...found, unreachable: false, gone: false };
    }
    tried.push(answer.problem);
    gone &&= answer.status === 404 || answer.status === 410;
  }
  const missing = { page, pageStatus: read.status, ...pageHtml, link: null, got: undefined, tried };
  return { ...missing, unreachable: false, gone };
}
