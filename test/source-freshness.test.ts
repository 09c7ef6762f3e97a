/**
 * `src/pull/source-freshness.ts`: each portal file current, late or stopped by what the pulls
 * recorded, and the store stale only when a core group has no file publishing or downloaded.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { freshnessOf, isStopped, staleness } from "../src/pull/source-freshness.ts";
import { portalFile } from "../src/pull/portal-files.ts";
import type { FileState, PullState } from "../src/pull/pull-state.ts";

const HOUR = 3_600_000;
const NOW = Date.parse("2026-06-20T06:00:00Z");
const WINDOW = 36 * HOUR;
const at = (hoursAgo: number) => new Date(NOW - hoursAgo * HOUR).toISOString();

// A file that published `hoursAgo`, was last downloaded `answeredAgo`, and reached a newest hour.
const publishing = (hoursAgo: number, answeredAgo = 1): FileState => ({
  firstTried: at(1000),
  answered: at(answeredAgo),
  published: at(hoursAgo),
  newest: at(hoursAgo + 80),
  lags: [81, 79, 90, 80],
});

const pull = (files: Record<string, FileState>): PullState => ({ format: 2, files });

test("a file is current within its cadence and the window, late after, and its usual lag is the median", () => {
  const spec = portalFile("Station_Build_Up.csv")!;
  const fresh = freshnessOf(spec, publishing(59), NOW, WINDOW);
  assert.equal(fresh.state, "current");
  assert.equal(fresh.usual_lag_hours, 80.5);
  assert.equal(fresh.link, "ok");
  assert.equal(freshnessOf(spec, publishing(61), NOW, WINDOW).state, "late");
  // Never published: judged from its first try.
  assert.equal(freshnessOf(spec, { firstTried: at(10) }, NOW, WINDOW).state, "current");
  assert.equal(freshnessOf(spec, { firstTried: at(61) }, NOW, WINDOW).state, "late");
});

test("a gone file is stopped after three days, at once when it never brought data", () => {
  const gone = (hours: number, state: FileState = publishing(100)): FileState => ({
    ...state,
    gone: { since: at(hours), why: "404" },
  });
  assert.equal(isStopped(gone(71), NOW), false);
  assert.equal(isStopped(gone(73), NOW), true);
  assert.equal(isStopped(gone(1, { firstTried: at(2) }), NOW), true, "nothing of it was ever stored");
  const spec = portalFile("System_hourly_demand_and_available_capacity.csv")!;
  const stopped = freshnessOf(spec, gone(80), NOW, WINDOW);
  assert.deepEqual([stopped.state, stopped.link, stopped.gone_since], ["stopped", "gone", at(80)]);
});

test("the store is stale when a core group has no current file, or was not downloaded within the window", () => {
  const demand = "System_hourly_actual_and_forecasted_demand.csv";
  assert.deepEqual(staleness(pull({}), NOW, WINDOW), { judged: false }, "no pull keeps it");
  assert.deepEqual(
    staleness(pull({ "Station_Build_Up.csv": publishing(10), [demand]: publishing(20) }), NOW, WINDOW),
    { judged: true },
  );
  // Either build-up file keeps its group fresh.
  const yesterdayOnly = pull({
    "Station_Build_Up.csv": publishing(70),
    "Station_Build_Up_Yesterday.csv": publishing(10),
    [demand]: publishing(20),
  });
  assert.equal(staleness(yesterdayOnly, NOW, WINDOW).why, undefined);
  const late = staleness(
    pull({ "Station_Build_Up.csv": publishing(70), [demand]: publishing(20) }),
    NOW,
    WINDOW,
  );
  assert.match(late.why!, /Station_Build_Up\.csv is late: no new hour published/);
  // Published lately, but no pull has reached it since: is make pull running?
  const unpulled = staleness(
    pull({ "Station_Build_Up.csv": publishing(10, 40), [demand]: publishing(20) }),
    NOW,
    WINDOW,
  );
  assert.match(
    unpulled.why!,
    /has not been downloaded for longer than STALE_AFTER_H: is make pull running\?/,
  );
});
