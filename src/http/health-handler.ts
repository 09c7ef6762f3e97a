/**
 * `GET /healthz`, no key: is the service up, and how fresh is its data. Freshness is judged by
 * publication (`pull/source-freshness.ts`), never by how old the data is: the portal holds hours
 * back for days on purpose. `stale` turns true when a core source (the station build-up, the
 * demand file) has published nothing new for longer than its cadence and STALE_AFTER_H, or has not
 * been downloaded for that long; for a store no pull keeps, when its newest actual hour is older
 * than STALE_AFTER_H. The service still answers (200, so a load balancer keeps it), but a monitor
 * should alert. A store of generated sample data is never stale: its status is `sample`. Each
 * portal file is listed with its state (current, late, stopped); the files the pull refuses are
 * listed until a good download (or, for a changed header, its acceptance). See
 * docs/operations.md: "Keeping the data current".
 */
import { lastSuccessfulPull, refusedFiles } from "../pull/pull-state.ts";
import { storeFreshness } from "../pull/source-freshness.ts";
import type { ReadingStore, StoreSnapshot } from "../store/reading-store.ts";
import { formatInstant, HOUR_MS } from "../time.ts";
import * as v from "valibot";
import type { RouteDoc } from "./route-doc.ts";
import type { Handler } from "./router.ts";
import type { Reply } from "./reply.ts";
import { SAMPLE_HEADERS } from "./dataset-envelope.ts";
import { VERSION } from "../version.ts";

const nullableString = (description?: string) =>
  description === undefined
    ? v.nullable(v.string())
    : v.pipe(v.nullable(v.string()), v.description(description));
const seconds = v.nullable(v.pipe(v.number(), v.integer()));

/** The 200 body. */
export const HealthBody = v.strictObject({
  status: v.pipe(
    v.picklist(["ok", "stale", "sample"]),
    v.description(
      "stale: a core source has published nothing new for longer than its cadence and STALE_AFTER_H (36 h by default), or was not downloaded for that long (still 200). sample: the store holds generated sample data, not Eskom's; never stale.",
    ),
  ),
  last_available: nullableString("The newest hour holding an actual reading."),
  data_age_seconds: v.pipe(seconds, v.description("Seconds since that hour began.")),
  stale: v.pipe(
    v.boolean(),
    v.description(
      "True when the station build-up or the demand file has published no new hour for longer than its cadence (a day) and STALE_AFTER_H (36 h by default), or was not downloaded for that long; never merely because the portal runs days behind. For a store no pull keeps: when its newest actual hour is older than STALE_AFTER_H. Alert on it. Always false for sample data.",
    ),
  ),
  stale_reason: v.optional(v.pipe(v.string(), v.description("Why the data is stale, when it is."))),
  sample: v.optional(
    v.pipe(
      v.literal(true),
      v.description("Present when the store holds generated sample data, not Eskom's."),
    ),
  ),
  days_stored: v.pipe(v.number(), v.integer(), v.minValue(0)),
  last_ingest: nullableString(),
  last_pull: nullableString("When `pull` last found every portal file current or ingested."),
  last_pull_age_seconds: seconds,
  refused_files: v.pipe(
    v.array(
      v.strictObject({
        file: v.string(),
        since: v.pipe(v.string(), v.description("When the refused (or failed) download came.")),
        reason: v.string(),
      }),
    ),
    v.description(
      "The portal files whose last download the pull refused or could not get, or that the portal does not publish now, until one is ingested; a changed header stays here until the operator accepts it (docs/operations.md).",
    ),
  ),
  sources: v.pipe(
    v.array(
      v.strictObject({
        file: v.string(),
        state: v.pipe(
          v.picklist(["current", "late", "stopped"]),
          v.description(
            "current: published within its cadence and STALE_AFTER_H; late: not for longer than that; stopped: its link has answered 404 or its body held its header only for more than three days.",
          ),
        ),
        cadence_hours: v.pipe(v.number(), v.description("How often the portal publishes it.")),
        newest_hour: nullableString("The newest hour with an observed value it brought: its last data."),
        last_publication: nullableString("When a download last brought a new or revised hour."),
        usual_lag_hours: v.pipe(
          v.nullable(v.number()),
          v.description(
            "How far behind its downloads their newest hour usually is (the median of the last few).",
          ),
        ),
        link: v.pipe(
          v.picklist(["ok", "gone", "empty", "failing"]),
          v.description(
            "ok: its last download answered; gone: 404; empty: header only; failing: refused or failed.",
          ),
        ),
        gone_since: v.optional(v.string()),
      }),
    ),
    v.description("Each portal file the pulls have tried, with how it publishes (docs/operations.md)."),
  ),
  version: v.pipe(v.string(), v.description("The release the service runs (CHANGELOG.md).")),
  redis: v.optional(
    v.pipe(
      v.picklist(["ok", "unavailable"]),
      v.description("With REDIS_URL: whether Redis, which holds the shared limits and keys, is reachable."),
    ),
  ),
});

/** The 503 bodies: the store cannot be read, or some days are damaged. */
export const HealthUnavailableBody = v.union([
  v.strictObject({ status: v.literal("unavailable"), detail: v.string() }),
  v.strictObject({
    status: v.literal("degraded"),
    detail: v.string(),
    damaged_days: v.pipe(v.array(v.string()), v.description("The damaged days, YYYY-MM-DD, sorted.")),
  }),
]);

/** The route's operation in the OpenAPI document. */
export const HEALTH_OPERATION: RouteDoc = {
  operationId: "health",
  summary: "Liveness and data freshness; no key needed.",
  tags: ["metadata"],
  responses: {
    "200": {
      description: "Up, with the age of the newest hour.",
      headers: ["X-Request-Id", "Data-Source"],
      body: HealthBody,
      bodyName: "Health",
    },
    "503": {
      description: "The store cannot be read, or some stored days are damaged.",
      headers: ["X-Request-Id"],
      body: HealthUnavailableBody,
    },
    "405": "MethodNotAllowed",
  },
};

/**
 * STALE_AFTER_H's default: how long past its cadence a core portal file may go without publishing
 * (`pull/source-freshness.ts`), and, for a store no pull keeps, how old its newest actual hour may
 * be. A day's cadence and 36 hours leave a late publication and a late pull their time.
 */
export const STALE_AFTER_MS = 36 * HOUR_MS;

// A JSON answer that no cache keeps.
function answer(reply: Reply, status: number, body: unknown, sample = false): void {
  const text = JSON.stringify(body);
  reply
    .writeHead(status, {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(text),
      "Cache-Control": "no-store",
      ...(sample ? SAMPLE_HEADERS : {}),
    })
    .end(text);
}

/** The shared state's reachability, when the service keeps it in Redis. */
export interface RedisHealth {
  up(): boolean;
  readonly failure: "closed" | "open";
}

// The 200 body: how fresh the data is, and the shared state's state when there is one.
function freshness(
  store: ReadingStore,
  snapshot: StoreSnapshot,
  t: number,
  staleAfterMs?: number,
  redis?: RedisHealth,
) {
  const last = snapshot.lastActual;
  const pulled = lastSuccessfulPull(store.dir);
  const { sample } = snapshot;
  const judged = storeFreshness(store.dir, last, t, staleAfterMs ?? STALE_AFTER_MS);
  const stale = !sample && judged.stale;
  return {
    status: sample ? "sample" : stale ? "stale" : "ok",
    last_available: last === null ? null : formatInstant(last),
    // The age of the newest hour: how long ago the newest reading's hour began.
    data_age_seconds: last === null ? null : Math.max(0, Math.floor((t - last) / 1000)),
    stale,
    ...(stale && judged.why !== undefined ? { stale_reason: judged.why } : {}),
    days_stored: snapshot.manifest.size,
    last_ingest: snapshot.modified === null ? null : new Date(snapshot.modified).toISOString(),
    last_pull: pulled === null ? null : new Date(pulled).toISOString(),
    last_pull_age_seconds: pulled === null ? null : Math.max(0, Math.floor((t - pulled) / 1000)),
    refused_files: [...refusedFiles(store.dir)].map(([file, refusal]) => ({
      file,
      since: refusal.at,
      reason: refusal.reason,
    })),
    sources: judged.sources,
    version: VERSION,
    ...(redis === undefined ? {} : { redis: redis.up() ? "ok" : "unavailable" }),
    ...(sample ? { sample: true } : {}),
  };
}

/** A health handler over `store`; `now` is the clock for the data's age. */
export function healthHandler(
  store: ReadingStore,
  options: {
    now?: () => number;
    onError?: (error: unknown) => void;
    staleAfterMs?: number;
    redis?: RedisHealth;
  } = {},
): Handler {
  const now = options.now ?? Date.now;
  const { redis } = options;
  return (_req, reply) => {
    let snapshot: StoreSnapshot;
    try {
      snapshot = store.refresh();
    } catch (error) {
      options.onError?.(error);
      return answer(reply, 503, { status: "unavailable", detail: "The data store cannot be read." });
    }
    // Under REDIS_FAILURE=closed every keyed request is refused while Redis is away: say so.
    if (redis?.failure === "closed" && !redis.up()) {
      return answer(reply, 503, {
        status: "unavailable",
        detail:
          "Redis, which holds the shared limits and keys, is unreachable; keyed requests get 503 until it returns.",
      });
    }
    if (snapshot.unavailable !== undefined) {
      return answer(reply, 503, { status: "unavailable", detail: `${snapshot.unavailable.message}.` });
    }
    const damaged = store.damaged();
    if (damaged.size > 0) {
      return answer(reply, 503, {
        status: "degraded",
        detail:
          "Some stored days are damaged and are not served; run npm run verify-store, then re-ingest their source.",
        damaged_days: [...damaged.keys()].sort(),
      });
    }
    answer(reply, 200, freshness(store, snapshot, now(), options.staleAfterMs, redis), snapshot.sample);
  };
}
