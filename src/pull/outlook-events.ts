/**
 * The webhook event of the load-shedding outlook (docs/webhooks.md): `outlook.changed` when the
 * chance of load reduction in the coming 24 hours (the likeliest of its hours, issued now) moves
 * into another band, made once per crossing. Looked at after each pull and each ingest, as the
 * outlook is issued anew each hour: `DATA_DIR/webhooks/outlook-state.json` keeps the band it was
 * last in (under a lock, so two processes never make the same event). The first look only records
 * the band; a store without subscriptions is not looked at.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { ForecastIssues } from "../forecasts/forecast-issues.ts";
import { outlookBand } from "../features/outlook-model.ts";
import { loadSheddingOutlook } from "../datasets/load-shedding-outlook.ts";
import { outlookReader, servedProbability } from "../datasets/outlook-reader.ts";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { withLock } from "../files/lock-file.ts";
import { createReadingStore } from "../store/reading-store.ts";
import { formatInstant, HOUR_MS } from "../time.ts";
import { enqueue } from "../webhooks/outbox.ts";
import { readEventState, warnOnStderr } from "../webhooks/event-state.ts";
import { readSubscriptions, WEBHOOKS_DIR } from "../webhooks/subscriptions.ts";

const STATE = "outlook-state.json";
const LOCK = "outlook-state.lock";
/** The hours ahead whose likeliest chance is watched. */
export const WATCHED_HOURS = 24;

const StateSchema = v.object({ band: v.string(), probability: v.number(), issued_at: v.string() });

/**
 * Looks at the outlook issued at `now` and queues `outlook.changed` when the band of the coming
 * 24 hours moved since the last look; returns how many events were queued (0 or 1). A damaged
 * state is set aside and told to `warn` (`event-state.ts`): a first look, which only records.
 */
export function outlookEvents(
  dataDir: string,
  now = Date.now(),
  warn: (message: string) => void = warnOnStderr,
): number {
  if (readSubscriptions(dataDir).length === 0) return 0;
  const dir = join(dataDir, WEBHOOKS_DIR);
  mkdirSync(dir, { recursive: true });
  return withLock(join(dir, LOCK), () => {
    const store = createReadingStore({ dir: dataDir, cacheDays: 100 });
    const issued = outlookReader(store, new ForecastIssues(dataDir), () => now).issued(undefined);
    const ahead = issued.hours.filter(
      (h) => h.hour >= issued.issuedAt && h.hour < issued.issuedAt + WATCHED_HOURS * HOUR_MS,
    );
    if (ahead.length === 0) return 0;
    const probability = servedProbability(Math.max(...ahead.map((h) => h.probability)));
    const band = outlookBand(probability);
    const path = join(dir, STATE);
    const before = readEventState(path, StateSchema, warn, now);
    const issuedAt = formatInstant(issued.issuedAt);
    let queued = 0;
    if (before !== null && before.band !== band) {
      enqueue(
        dataDir,
        {
          type: "outlook.changed",
          data: {
            dataset: loadSheddingOutlook.id,
            from: before.band,
            to: band,
            probability,
            issued_at: issuedAt,
            newest_actual: issued.t0 === null ? null : formatInstant(issued.t0),
            url: `${loadSheddingOutlook.path}?as_of=${issuedAt.replace("+00:00", "Z")}`,
          },
        },
        { now },
      );
      queued = 1;
    }
    if (before?.band !== band || before.issued_at !== issuedAt)
      writeFileAtomic(path, JSON.stringify({ band, probability, issued_at: issuedAt }) + "\n");
    return queued;
  });
}
