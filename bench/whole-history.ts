/**
 * `BENCH_PARTS=history make bench` (in the default parts): a 10-year hourly download in CSV and
 * in Parquet from a 10-year store, one after the other on an idle server. For each: the time to the
 * last byte, the bytes, and the server's resident memory sampled every 5 ms during the download,
 * against its resident memory when idle just before (target: at most 64 MB above it). The client
 * counts bytes and keeps none, so only the server's memory is measured.
 */
import { request } from "node:http";
import { readFileSync } from "node:fs";

/** One download's figures. */
export interface HistoryFigures {
  readonly ms: number;
  readonly bytes: number;
  readonly idle_rss_mb: number;
  readonly peak_rss_mb: number;
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

// Fetches `url`, counting its bytes and keeping none; rejects on a status other than 200.
function download(url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { "X-API-KEY": key, "Accept-Encoding": "identity" } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () =>
        res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${url}: ${res.statusCode}`)),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Downloads `path` from the server at `url` (process `pid`) and measures it. */
export async function measureDownload(
  url: string,
  path: string,
  key: string,
  pid: number,
): Promise<HistoryFigures> {
  // Let the last request's garbage go before the idle figure.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = rssKb(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(pid))), 5);
  const started = performance.now();
  try {
    const bytes = await download(url + path, key);
    return {
      ms: Math.round(performance.now() - started),
      bytes,
      idle_rss_mb: Math.round(idle / 1024),
      peak_rss_mb: Math.round(Math.max(peak, rssKb(pid)) / 1024),
    };
  } finally {
    clearInterval(sampler);
  }
}

/** The two downloads of the part, over the store's ten years (2016 to 2025). */
export const HISTORY_PATHS = {
  csv: "/api/v1/grid/system-state?start=2016-01-01&end=2026-01-01&format=csv",
  parquet: "/api/v1/grid/system-state?start=2016-01-01&end=2026-01-01&format=parquet",
} as const;
