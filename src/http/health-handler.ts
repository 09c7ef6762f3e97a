/** `GET /healthz`, no key: is the service up, and how fresh is its data. */
import type { ReadingStore, StoreSnapshot } from "../store/reading-store.ts";
import { formatInstant } from "../time.ts";
import type { Handler } from "./router.ts";

/** A health handler over `store`; `now` is the clock for the data's age. */
export function healthHandler(
  store: ReadingStore,
  options: { now?: () => number; onError?: (error: unknown) => void } = {},
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
    const last = snapshot.lastActual;
    const body = JSON.stringify({
      status: "ok",
      last_available: last === null ? null : formatInstant(last),
      // The age of the newest hour: how long ago the newest reading's hour began.
      data_age_seconds: last === null ? null : Math.max(0, Math.floor((now() - last) / 1000)),
      days_stored: snapshot.manifest.size,
      last_ingest: snapshot.modified === null ? null : new Date(snapshot.modified).toISOString(),
    });
    res.writeHead(200, {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body),
      "Cache-Control": "no-store",
    });
    res.end(body);
  };
}
