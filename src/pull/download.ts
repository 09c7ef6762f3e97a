/**
 * One conditional GET of a portal file (or one request of a PowerBI report), with a deadline per
 * attempt and bounded retries. Retried: connection errors, timeouts, 429 (after its Retry-After)
 * and 5xx, with exponential backoff and full jitter; never another 4xx. A body is returned only
 * when it is whole and within the size bound: one shorter than its Content-Length is an error,
 * never a file. Every request names the service in its User-Agent.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { setTimeout as delay } from "node:timers/promises";
import { retryAfterMs } from "../time.ts";
import { VERSION } from "../version.ts";

/** How the pull names itself to the servers it asks. */
export const USER_AGENT = `grid-data-service/${VERSION} (a self-hosted reader of the Eskom Data Portal)`;

/** How to download: the deadline per attempt, and how often and how long to wait between tries. */
export interface DownloadPolicy {
  readonly timeoutMs: number;
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** The first backoff; each retry doubles it (with full jitter), up to `maxBackoffMs`. */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  /** Heard before each retry: why, and how long the wait is. */
  readonly onRetry?: (reason: string, waitMs: number) => void;
  /** The largest body accepted (the portal's files are about 120 KB); the default is 64 MB. */
  readonly maxBytes?: number;
}

const MAX_BYTES = 64 * 1024 * 1024;

/** The validators remembered from the last good download of a URL. */
export interface Validators {
  readonly etag?: string;
  readonly lastModified?: string;
}

/** What came back: a body, "not modified", or a status that retrying will not change. */
export type Download =
  | { kind: "body"; body: Buffer; contentType: string; validators: Validators }
  | { kind: "not-modified" }
  | { kind: "status"; status: number };

/**
 * A download that failed for good (after the retries); the message names the URL. `status` is the
 * last HTTP status, or undefined when no server answered at all (the host is unreachable).
 */
export class DownloadError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = "DownloadError";
    this.status = status;
  }
}

interface Attempt {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly body: Buffer;
}

/** A request other than a plain GET: its method, headers and body. */
export interface RequestInit {
  readonly method?: "GET" | "POST";
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

// One request; rejects on a connection error, the deadline, or a body cut short.
function attempt(url: URL, init: RequestInit, timeoutMs: number, maxBytes: number): Promise<Attempt> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers = { ...init.headers };
  if (init.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(init.body));
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? "GET", headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxBytes) req.destroy(new Error(`the body is larger than ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on("error", reject);
      res.on("aborted", () => reject(new Error("the connection closed before the body was complete")));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        const declared = res.headers["content-length"];
        if (!res.complete || (declared !== undefined && Number(declared) !== body.length)) {
          reject(
            new Error(`the body is ${body.length} bytes, shorter than its Content-Length of ${declared}`),
          );
          return;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    // The whole attempt has one deadline, whether the server is silent before or during the body.
    const deadline = setTimeout(
      () => req.destroy(new Error(`no complete answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    req.on("close", () => clearTimeout(deadline));
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on("error", reject);
    req.end(init.body);
  });
}

function backoff(policy: DownloadPolicy, retry: number): number {
  const cap = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** retry);
  return Math.round(Math.random() * cap);
}

/** GETs `url`, conditionally when `known` validators are given; `accept` is the Accept header. */
export function download(
  url: string,
  known: Validators,
  policy: DownloadPolicy,
  accept = "text/csv, */*;q=0.5",
): Promise<Download> {
  const headers: Record<string, string> = { Accept: accept };
  if (known.etag !== undefined) headers["If-None-Match"] = known.etag;
  if (known.lastModified !== undefined) headers["If-Modified-Since"] = known.lastModified;
  return fetchWithRetries(url, { headers }, policy);
}

/** Asks `url` as `init` says (a GET by default), with the policy's deadline, retries and bound. */
export async function fetchWithRetries(
  url: string,
  init: RequestInit,
  policy: DownloadPolicy,
): Promise<Download> {
  const sent = { ...init, headers: { "User-Agent": USER_AGENT, ...init.headers } };
  let last = "";
  let lastStatus: number | undefined;
  for (let n = 0; n < policy.attempts; n++) {
    let wait: number;
    try {
      const res = await attempt(new URL(url), sent, policy.timeoutMs, policy.maxBytes ?? MAX_BYTES);
      if (res.status === 304) return { kind: "not-modified" };
      if (res.status >= 200 && res.status < 300) {
        const etag = res.headers.etag;
        const lastModified = res.headers["last-modified"];
        return {
          kind: "body",
          body: res.body,
          contentType: String(res.headers["content-type"] ?? ""),
          validators: { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) },
        };
      }
      if (res.status !== 429 && res.status < 500) return { kind: "status", status: res.status };
      last = `HTTP ${res.status}`;
      lastStatus = res.status;
      const asked = res.status === 429 ? retryAfterMs(res.headers["retry-after"]) : undefined;
      wait = asked === undefined ? backoff(policy, n) : Math.min(asked, policy.maxBackoffMs * 4);
    } catch (error) {
      last = (error as Error).message;
      lastStatus = undefined;
      wait = backoff(policy, n);
    }
    if (n + 1 < policy.attempts) {
      policy.onRetry?.(last, wait);
      await delay(wait);
    }
  }
  const tries = policy.attempts === 1 ? "1 attempt" : `${policy.attempts} attempts`;
  throw new DownloadError(`Cannot download ${url}: ${last} (after ${tries})`, lastStatus);
}
