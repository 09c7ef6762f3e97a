/**
 * The webhook events of the grid itself (docs/webhooks.md), made after the store gained hours (by
 * a pull or an ingest): `grid_stress.band_changed` when the newest hours' grid-stress band moved,
 * `load_reduction.started` and `load_reduction.ended` when manual load reduction rose above 0 or
 * fell back to it. Each newest hour is looked at once: `DATA_DIR/webhooks/grid-state.json` keeps
 * the last hour looked at, its band and whether load was being reduced (under a lock, so two
 * processes never make the same event). A store looked at for the first time starts a day back;
 * a store without subscriptions is not looked at.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { DataRecord } from "../records/dataset.ts";
import { loadReduction } from "../datasets/load-reduction.ts";
import { writeFileAtomic } from "../files/atomic-write.ts";
import { withLock } from "../files/lock-file.ts";
import { gridStress } from "../datasets/grid-stress.ts";
import { createReadingStore } from "../store/reading-store.ts";
import { DAY_MS, formatInstant, HOUR_MS } from "../time.ts";
import { enqueue, type WebhookEvent } from "../webhooks/outbox.ts";
import { readEventState, warnOnStderr } from "../webhooks/event-state.ts";
import { readSubscriptions, WEBHOOKS_DIR } from "../webhooks/subscriptions.ts";

const STATE = "grid-state.json";
const LOCK = "grid-state.lock";
/** The most hours looked at in one go: a store that gained years at once makes events for its last 31 days. */
const MAX_HOURS = 31 * 24;

const StateSchema = v.object({
  last_hour: v.string(),
  band: v.nullable(v.string()),
  reducing: v.boolean(),
  reduction_mw: v.optional(v.number()),
});
type GridState = v.InferOutput<typeof StateSchema>;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const range = (path: string, hour: number) =>
  `${path}?start=${day(hour - DAY_MS)}&end=${day(hour + 2 * DAY_MS)}`;

// The events of the hours in order, from the state before them; returns them and the state after.
function transitions(
  stress: readonly DataRecord[],
  reduction: readonly DataRecord[],
  before: GridState | null,
): { events: WebhookEvent[]; after: Partial<GridState> } {
  const events: WebhookEvent[] = [];
  let band = before?.band ?? null;
  for (const r of stress) {
    if (typeof r.band !== "string") continue;
    if (band !== null && r.band !== band) {
      const hour = Date.parse(r.ts as string);
      events.push({
        type: "grid_stress.band_changed",
        data: { from: band, to: r.band, value: r.value, hour: r.ts, url: range(gridStress.path, hour) },
      });
    }
    band = r.band;
  }
  let reducing = before?.reducing ?? null;
  let lastMw = before?.reduction_mw ?? 0;
  for (const r of reduction) {
    const mw = r.manual_load_reduction_mw;
    if (typeof mw !== "number") continue;
    const now = mw > 0;
    if (reducing !== null && now !== reducing) {
      const hour = Date.parse(r.ts as string);
      events.push({
        type: now ? "load_reduction.started" : "load_reduction.ended",
        data: { hour: r.ts, mw: now ? mw : lastMw, url: range(loadReduction.path, hour) },
      });
    }
    reducing = now;
    lastMw = mw;
  }
  return { events, after: { band, ...(reducing === null ? {} : { reducing, reduction_mw: lastMw }) } };
}

/**
 * Makes the grid's events for the hours the store at `dataDir` gained; returns how many were
 * queued. A damaged state is set aside and told to `warn` (`event-state.ts`): a first look.
 */
export function gridEvents(
  dataDir: string,
  now = Date.now(),
  warn: (message: string) => void = warnOnStderr,
): number {
  // Without subscriptions there is no one to tell: nothing is looked at or written.
  if (readSubscriptions(dataDir).length === 0) return 0;
  const dir = join(dataDir, WEBHOOKS_DIR);
  mkdirSync(dir, { recursive: true });
  return withLock(join(dir, LOCK), () => {
    const path = join(dir, STATE);
    const before = readEventState(path, StateSchema, warn, now);
    const store = createReadingStore({ dir: dataDir, cacheDays: 40 });
    const newest = store.refresh().lastActual;
    if (newest === null) return 0;
    const after = before === null ? newest - DAY_MS : Date.parse(before.last_hour);
    const start = Math.max(after + HOUR_MS, newest - MAX_HOURS * HOUR_MS);
    if (start > newest) return 0;
    const request = { start, end: newest + HOUR_MS, interval: "1h" as const, options: {} };
    const { events, after: state } = transitions(
      gridStress.records(store, request),
      loadReduction.records(store, request),
      before,
    );
    for (const event of events) enqueue(dataDir, event, { now });
    const next: GridState = {
      last_hour: formatInstant(newest),
      band: state.band ?? before?.band ?? null,
      reducing: state.reducing ?? before?.reducing ?? false,
      ...(state.reduction_mw === undefined ? {} : { reduction_mw: state.reduction_mw }),
    };
    writeFileAtomic(path, JSON.stringify(next) + "\n");
    return events.length;
  });
}
