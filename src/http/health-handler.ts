/**
 * `GET /healthz`, no key: is the service up, and how fresh is its data. `stale` turns true when
 * the newest actual hour is older than the threshold (3 hours by default): the service still
 * answers (200, so a load balancer keeps it), but a monitor should alert. See the README's
 * "Keeping the data current".
 */
import { lastSuccessfulPull } from "../pull/pull-state.ts";
import type { ReadingStore, StoreSnapshot } from "../store/reading-store.ts";
import { formatInstant, HOUR_MS } from "../time.ts";
import type { Handler } from "./router.ts";

/** How old the newest actual hour may be before the data counts as stale. */
export const STALE_AFTER_MS = 3 * HOUR_MS;

/** Whether data whose newest actual hour began at `last` is stale at `now`. */
export function isStale(last: number | null, now: number, staleAfterMs = STALE_AFTER_MS): boolean {
  return last === null || now - last > staleAfterMs;
}

/** A health handler over `store`; `now` is the clock for the data's age. */
export function healthHandler(
  store: ReadingStore,
  options: { now?: () => number; onError?: (error: unknown) => void; staleAfterMs?: number } = {},
): Handler {
  const now = options.now ?? Date.now;
  return (_req, res) => {
    let snapshot: StoreSnapshot;
    try {
      snapshot = store.refresh();
    } catch (error) {
      options.onError?.(error);
      const body = JSON.stringify({ status: "unavailable", detail: "The data store cannot be read." });
      res.writeHead(503, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    const damaged = store.damaged();
    if (damaged.size > 0) {
      const body = JSON.stringify({
        status: "degraded",
        detail:
          "Some stored days are damaged and are not served; run npm run verify-store, then re-ingest their source.",
        damaged_days: [...damaged.keys()].sort(),
      });
      res.writeHead(503, {
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(body),
        "Cache-Control": "no-store",
      });
      res.end(body);
      return;
    }
    const last = snapshot.lastActual;
    const t = now();
    const pulled = lastSuccessfulPull(store.dir);
    const stale = isStale(last, t, options.staleAfterMs);
    const body = JSON.stringify({
      status: stale ? "stale" : "ok",
      last_available: last === null ? null : formatInstant(last),
      // The age of the newest hour: how long ago the newest reading's hour began.
      data_age_seconds: last === null ? null : Math.max(0, Math.floor((t - last) / 1000)),
      stale,
      days_stored: snapshot.manifest.size,
      last_ingest: snapshot.modified === null ? null : new Date(snapshot.modified).toISOString(),
      last_pull: pulled === null ? null : new Date(pulled).toISOString(),
      last_pull_age_seconds: pulled === null ? null : Math.max(0, Math.floor((t - pulled) / 1000)),
    });
    res.writeHead(200, {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body),
      "Cache-Control": "no-store",
    });
    res.end(body);
  };
}
