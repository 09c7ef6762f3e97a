/**
 * The portal as it runs in 2026, replayed through the loopback stand-in with its real downloads
 * (../shared/data/eskom/portal_2026/) behind its real graph pages, links rewritten to the stand-in,
 * and the clock injected: freshness judged by publication while the data runs days behind, and a
 * file whose link dies reported as stopped after three days without failing the pull.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createMetrics } from "../src/metrics/metrics.ts";
import { pullPortal } from "../src/pull/pull.ts";
import { portalFile } from "../src/pull/portal-files.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { REAL_DATA_DIR, skipUnless, startServer, tempDir } from "./helpers.ts";
import { startPortal } from "./portal-stand-in.ts";

const DIR = join(REAL_DATA_DIR, "portal_2026");
const SKIP = skipUnless(
  existsSync(join(DIR, "2026-01-31", "pages")),
  `the 2026 downloads are not at ${DIR}; these tests need ../shared/data/eskom beside the checkout`,
);
const HOUR = 3_600_000;
const FAST = { timeoutMs: 2000, attempts: 2, backoffMs: 5, maxBackoffMs: 20 };
const BUILD_UP = "Station_Build_Up.csv";
const DEMAND = "System_hourly_actual_and_forecasted_demand.csv";
const CAPACITY = "System_hourly_demand_and_available_capacity.csv";
const UCLF = "Hourly_UCLF_and_OCLF_Trend.csv";

// Where each file's real download is, and the real page that links it (when there is one).
const DOWNLOADS: Record<string, { path: string; page?: string }> = {
  [BUILD_UP]: { path: BUILD_UP },
  [DEMAND]: { path: "2026-01-31/" + DEMAND, page: "system-hourly-actual-and-forecasted-demand.html" },
  [CAPACITY]: { path: "2026-01-31/" + CAPACITY, page: "system-hourly-demand-and-available-capacity.html" },
  [UCLF]: { path: "2026-06-19/" + UCLF },
};

/** The stand-in with `files` uploaded to the 2026/01 folder, each behind its real page where there is one. */
async function portal2026(t: TestContext, files: readonly string[]) {
  const stand = await startPortal(t);
  for (const file of files) {
    const { path, page } = DOWNLOADS[file]!;
    stand.publish(file, readFileSync(join(DIR, path)), { folder: "2026/01" });
    if (page === undefined) continue;
    // The page as a browser saved it, its CSV links pointed at the stand-in.
    const html = readFileSync(join(DIR, "2026-01-31", "pages", page), "utf8").replaceAll(
      "https://www.eskom.co.za/dataportal/",
      stand.root,
    );
    stand.on(stand.pagePath(file), (_q, r) => {
      r.writeHead(200, { "Content-Type": "text/html; charset=UTF-8" }).end(html);
      return true;
    });
  }
  const specs = files.map((f) => portalFile(f)!);
  const pull = (dir: string, at: number) =>
    pullPortal({ dir, root: stand.root, files: specs, policy: FAST, now: () => at });
  return { stand, pull };
}

interface Health {
  status: string;
  stale: boolean;
  stale_reason?: string;
  data_age_seconds: number;
  sources: {
    file: string;
    state: string;
    usual_lag_hours: number | null;
    newest_hour: string;
    gone_since?: string;
  }[];
}

test(
  "two hours after a pull that brought the newest build-up and demand, /healthz is not stale though the data is days behind; stale once nothing new comes for longer than the window",
  { skip: SKIP },
  async (t) => {
    // 2026-06-17 06:00 UTC, after the portal's daily rewrite: the build-up holds hours to 06-13 23:00 SAST.
    const pulledAt = Date.parse("2026-06-17T06:00:00Z");
    const { pull } = await portal2026(t, [BUILD_UP, DEMAND, UCLF]);
    const dir = tempDir(t);
    const first = await pull(dir, pulledAt);
    assert.equal(first.ok, true, JSON.stringify(first.files));
    let now = pulledAt + 2 * HOUR;
    const server = await startServer(t, dir, { now: () => now });
    const health = async () => (await (await server.raw("/healthz")).json()) as Health;

    const fresh = await health();
    assert.equal(fresh.stale, false, JSON.stringify(fresh));
    assert.equal(fresh.status, "ok");
    assert.ok(
      fresh.data_age_seconds > 3 * 24 * 3600,
      `the data is ${fresh.data_age_seconds} s behind, on purpose`,
    );
    assert.deepEqual(
      fresh.sources.map((s) => [s.file, s.state]),
      [
        [BUILD_UP, "current"],
        [DEMAND, "current"],
        [UCLF, "current"],
      ],
    );
    const build = fresh.sources.find((s) => s.file === BUILD_UP)!;
    assert.equal(build.newest_hour, "2026-06-13T21:00:00.000Z", "23:00 SAST, the last hour with data");
    assert.equal(build.usual_lag_hours, 81, "three and a half days behind its download");

    // The portal publishes nothing new: every hourly pull finds the same files.
    for (let at = pulledAt + HOUR; at <= pulledAt + 62 * HOUR; at += 12 * HOUR) {
      assert.equal((await pull(dir, at)).ok, true);
    }
    now = pulledAt + 59 * HOUR; // a day's cadence and STALE_AFTER_H (36 h) not yet past
    assert.equal((await health()).stale, false);
    now = pulledAt + 61 * HOUR;
    const stale = await health();
    assert.equal(stale.stale, true);
    assert.equal(stale.status, "stale");
    assert.match(stale.stale_reason!, /Station_Build_Up\.csv is late: no new hour published/);
    assert.ok(stale.sources.every((s) => s.state === "late"));
  },
);

test(
  "with the capacity file's link dead for more than three days, the pull succeeds, says it has stopped and since when, and stores the rest; /healthz, the catalog and the metrics name it stopped",
  { skip: SKIP },
  async (t) => {
    // 2026-01-31 20:22 SAST, when these downloads were saved.
    const savedAt = Date.parse("2026-01-31T18:22:00Z");
    const { stand, pull } = await portal2026(t, [DEMAND, CAPACITY]);
    const dir = tempDir(t);
    assert.equal((await pull(dir, savedAt)).ok, true);

    // Its page stays up and still links the CSV, which now answers 404 (as since March 2026).
    stand.on(`uploads/2026/01/${CAPACITY}`, (_q, r) => (r.writeHead(404).end(), true));
    const diedAt = savedAt + 24 * HOUR;
    for (const at of [diedAt, diedAt + 48 * HOUR]) {
      const failing = await pull(dir, at);
      assert.equal(failing.ok, false, "a new failure fails the pull");
      assert.equal(failing.files.find((f) => f.file === CAPACITY)!.result, "failed");
    }
    const stoppedAt = diedAt + 73 * HOUR;
    const result = await pull(dir, stoppedAt);
    assert.equal(result.ok, true, JSON.stringify(result.files));
    const capacity = result.files.find((f) => f.file === CAPACITY)!;
    assert.deepEqual(
      [capacity.result, capacity.since, capacity.lastData],
      ["stopped", new Date(diedAt).toISOString(), "2026-01-28T21:00:00.000Z"],
    );
    assert.equal(
      result.files.find((f) => f.file === DEMAND)!.result,
      "not-modified",
      "the rest is still pulled",
    );

    const now = stoppedAt + HOUR;
    const server = await startServer(t, dir, { now: () => now });
    const health = (await (await server.raw("/healthz")).json()) as Health;
    const listed = health.sources.find((s) => s.file === CAPACITY)!;
    assert.equal(listed.state, "stopped");
    assert.equal(listed.gone_since, new Date(diedAt).toISOString());
    assert.equal(
      health.sources.find((s) => s.file === DEMAND)!.state,
      "late",
      "nothing new from it in 4 days",
    );

    const catalog = (await (await server.get("/api/v1/datasets")).json()) as {
      datasets: { id: string; sources: { file: string; state: string }[]; newest_source: string | null }[];
    };
    const margin = catalog.datasets.find((d) => d.id === "grid.supply_margin")!;
    assert.deepEqual(
      margin.sources.map((s) => [s.file, s.state]),
      [
        [DEMAND, "late"],
        [CAPACITY, "stopped"],
      ],
    );
    assert.equal(margin.newest_source, DEMAND, "both reach 01-28 23:00 SAST: the one still publishing");

    const { registry } = createMetrics({
      store: createReadingStore({ dir }),
      datasets: [],
      dir,
      staleAfterMs: 36 * HOUR,
      now: () => now,
    });
    const text = await registry.metrics();
    assert.match(text, new RegExp(`gds_source_state\\{file="${CAPACITY}",state="stopped"\\} 1`));
    assert.match(text, new RegExp(`gds_source_state\\{file="${CAPACITY}",state="current"\\} 0`));
    assert.match(text, /gds_data_stale 1/);
  },
);
