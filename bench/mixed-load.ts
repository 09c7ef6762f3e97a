/**
 * `make bench`'s mixed-load part: does one request wait behind another's work? While 30 uncached
 * requests for a year of hourly grid stress with its components run at once (each a different
 * range, so none is served from a cache; Accept-Encoding br, gzip and identity in turn), a probe
 * asks for `/healthz` and for a cached 30-day range, one after the other, and times each answer.
 * The figures are the probes' p50, p99 and worst; the goal is a p99 of at most 50 ms. The server
 * has answered one such request before (its code is compiled, as on a server that has run a
 * while). A second round asks the heavy requests with `as_of` (the past is computed afresh).
 */
import { request } from "node:http";

/** One probe's latencies, in ms. */
export interface ProbeFigures {
  readonly samples: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly max_ms: number;
}

/** A round: the probes' figures, and how long the heavy requests took in all. */
export interface MixedRound {
  readonly healthz: ProbeFigures;
  readonly cached_30d: ProbeFigures;
  readonly heavy_requests: number;
  readonly heavy_total_s: number;
}

const HEAVY = 30;
const ENCODINGS = ["br", "gzip", "identity"];

// One GET, read to its end; resolves with the time it took, in ms.
function timedGet(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () =>
        res.statusCode === 200
          ? resolve(performance.now() - started)
          : reject(new Error(`${url}: ${res.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

function figures(latencies: number[]): ProbeFigures {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const round = (ms: number) => Number(ms.toFixed(1));
  return {
    samples: sorted.length,
    p50_ms: round(at(0.5)),
    p99_ms: round(at(0.99)),
    max_ms: round(sorted.at(-1) ?? NaN),
  };
}

/** One round against the service at `url`; `asOf` adds `as_of` to the heavy requests. */
export async function mixedRound(url: string, key: string, asOf?: string): Promise<MixedRound> {
  const headers = { "X-API-KEY": key };
  const cached = `${url}/api/v1/grid/system-state?start=2025-06-01T00:00:00Z&end=2025-07-01T00:00:00Z`;
  await timedGet(cached, headers); // now it is cached
  // A server that has run a while: its code compiled for this work (a range the round does not ask).
  await timedGet(
    `${url}/api/v1/features/grid-stress?start=2023-01-01&end=2023-04-01&components=true`,
    headers,
  );
  const first = Date.parse("2024-01-01T00:00:00Z");
  const started = performance.now();
  let running = true;
  const heavy = Promise.all(
    Array.from({ length: HEAVY }, (_, i) => {
      const start = new Date(first + i * 86_400_000).toISOString();
      const end = new Date(first + (i + 366) * 86_400_000).toISOString();
      const query = `start=${start}&end=${end}&components=true${asOf === undefined ? "" : `&as_of=${asOf}`}`;
      return timedGet(`${url}/api/v1/features/grid-stress?${query}`, {
        ...headers,
        "Accept-Encoding": ENCODINGS[i % ENCODINGS.length]!,
      });
    }),
  ).finally(() => (running = false));
  const health: number[] = [];
  const warm: number[] = [];
  while (running) {
    health.push(await timedGet(`${url}/healthz`, {}));
    warm.push(await timedGet(cached, headers));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await heavy;
  return {
    healthz: figures(health),
    cached_30d: figures(warm),
    heavy_requests: HEAVY,
    heavy_total_s: Number(((performance.now() - started) / 1000).toFixed(2)),
  };
}
