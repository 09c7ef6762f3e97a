/**
 * A report that cannot be read with certainty stores nothing (`powerbi-portal.ts` sets the scene:
 * the real January 2026 page, its CSV dead, a loopback cluster). Each fault says which request
 * failed and why; the next pull tries again, and finds the report anew.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createMetrics } from "../src/metrics/metrics.ts";
import { describe } from "../src/pull/pull.ts";
import { readPullState } from "../src/pull/pull-state.ts";
import { sourcesOf } from "../src/pull/source-freshness.ts";
import { forEachStoredHour } from "../src/records/stored-hours.ts";
import { requireColumn } from "../src/source/columns.ts";
import { parsePortalCsv } from "../src/source/portal-csv.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { tempDir } from "./helpers.ts";
import { CAPACITY, DAY, HOUR, livePage, pull, SAVED, SKIP, stands } from "./powerbi-portal.ts";
import { type ReportRow, SERIES } from "./powerbi-stand-in.ts";

const AVAILABLE = requireColumn("available_capacity_incl_non_comm_units");

/** How many hours of January 2026 hold a capacity value. */
function capacityHours(dir: string): number {
  let hours = 0;
  const store = createReadingStore({ dir });
  forEachStoredHour(
    store,
    Date.parse("2026-01-01T00:00:00Z"),
    Date.parse("2026-02-10T00:00:00Z"),
    (_h, r) => {
      if (!Number.isNaN(r[AVAILABLE]!)) hours++;
    },
  );
  return hours;
}

/** The report's outcome of a pull. */
async function reportOf(pulled: ReturnType<typeof pull>) {
  const found = (await pulled).files.find((f) => f.via === "powerbi");
  assert.ok(found, "the report was read");
  return found;
}

test(
  "a changed key: the old one's 404 stores nothing; the page's new key is read at the next pull",
  { skip: SKIP },
  async (t) => {
    const dir = tempDir(t);
    const stand = await stands(t);
    const renewed = "0b5e7c1a-2d3f-4a6b-8c9d-0e1f2a3b4c5d";
    stand.powerbi.resourceKey = renewed; // Eskom made the report anew; the page still shows the old one
    const failed = await reportOf(pull(dir, stand));
    assert.equal(failed.result, "failed");
    assert.match(
      failed.error!,
      /the report's model: .* answered HTTP 404 \(the report's key may have changed\); nothing of it was stored$/,
    );
    assert.equal(capacityHours(dir), 0);
    const source = sourcesOf(readPullState(dir), SAVED, 36 * HOUR).find((s) => s.kind === "powerbi")!;
    assert.deepEqual([source.link, source.state], ["failing", "current"]);
    assert.match(source.failing!, /HTTP 404/);

    const page = livePage(renewed);
    stand.portal.on(stand.portal.pagePath(CAPACITY), (_req, res) => (res.writeHead(200).end(page), true));
    const read = await reportOf(pull(dir, stand, SAVED + HOUR));
    assert.equal(read.result, "ingested", describe(read));
    assert.equal(capacityHours(dir), 144);
    assert.equal(readPullState(dir).reports![CAPACITY]!.resourceKey, renewed);
    assert.equal(readPullState(dir).reports![CAPACITY]!.failing, undefined);
  },
);

test(
  "an HTML page, a cut JSON or a 500 on any window stores nothing of the report, and says which",
  { skip: SKIP },
  async (t) => {
    const dir = tempDir(t);
    const stand = await stands(t);
    const cases: [string, (res: import("node:http").ServerResponse) => void, RegExp][] = [
      [
        "an HTML error page",
        (res) =>
          res
            .writeHead(200, { "Content-Type": "text/html" })
            .end("<!DOCTYPE html><html><body>Something went wrong</body></html>"),
        /window 2 of the report's rows: the answer is not JSON \(it begins "<!DOCTYPE html><html><body>Something/,
      ],
      [
        "a cut JSON",
        (res) =>
          res
            .writeHead(200, { "Content-Type": "application/json" })
            .end('{"jobIds":["c0ffee00"],"results":[{"jobId'),
        /window 2 of the report's rows: the answer is not JSON/,
      ],
      [
        "a 500",
        (res) => res.writeHead(500).end(),
        /window 2 of the report's rows: Cannot download \S+: HTTP 500 \(after 1 attempt\); nothing of it was stored$/,
      ],
    ];
    for (const [what, answer, why] of cases) {
      stand.powerbi.on("querydata", (_req, res, n) => (n % 2 === 0 ? (answer(res), true) : false));
      const outcome = await reportOf(pull(dir, stand));
      assert.equal(outcome.result, "failed", what);
      assert.match(outcome.error!, why, what);
      assert.equal(capacityHours(dir), 0, `${what}: the first window's rows are not kept either`);
      stand.powerbi.on("querydata", undefined);
    }
  },
);

test(
  "a model without the CSV's series, or an answer naming other columns, is refused whole",
  { skip: SKIP },
  async (t) => {
    const dir = tempDir(t);
    const stand = await stands(t);
    stand.powerbi.series = SERIES.map((s) => (s === "Residual Demand" ? "Residual Demand (Forecast)" : s));
    const model = await reportOf(pull(dir, stand));
    assert.match(
      model.error!,
      /the report's model: no visual of the report plots datetimekey, available_capacity_incl_non_comm_units, .*residual_demand/,
    );
    stand.powerbi.series = SERIES;
    stand.powerbi.named = (name) => name.replace("RSA Contracted Demand", "RSA Contracted Demand Forecast");
    const answer = await reportOf(pull(dir, stand));
    assert.match(
      answer.error!,
      /the report's rows: page 1: the answer has no column of rsa_contracted_demand/,
    );
    assert.equal(capacityHours(dir), 0);
  },
);

test("a window that never ends, and a 429 waited out", { skip: SKIP }, async (t) => {
  const dir = tempDir(t);
  const stand = await stands(t);
  stand.powerbi.windowRows = 1; // a cluster that hands out a row at a time, without end in sight
  const endless = await reportOf(pull(dir, stand));
  assert.match(endless.error!, /the report's rows did not end within 20 windows of 500/);
  assert.equal(stand.powerbi.requests.filter((r) => r.path.endsWith("querydata")).length, 20);
  assert.equal(capacityHours(dir), 0);

  stand.powerbi.windowRows = 100;
  stand.powerbi.on("modelsAndExploration", (_req, res, n) =>
    n === 1 ? (res.writeHead(429, { "Retry-After": "0" }).end(), true) : false,
  );
  const read = await reportOf(pull(dir, stand, SAVED + HOUR, { attempts: 2 }));
  assert.equal(read.result, "ingested", describe(read));
});

test("a window that moved past the stored hours says which hours were lost", { skip: SKIP }, async (t) => {
  const dir = tempDir(t);
  const stand = await stands(t);
  await pull(dir, stand);
  // Ten days without a pull: the report's week now starts ten days later.
  const later = (stamp: string) =>
    new Date(Date.parse(`${stamp.replace(" ", "T")}Z`) + 10 * DAY)
      .toISOString()
      .slice(0, 19)
      .replace("T", " ");
  stand.powerbi.rows = stand.powerbi.rows.map(([stamp, ...values]): ReportRow => [later(stamp), ...values]);
  const outcome = await reportOf(pull(dir, stand, SAVED + 10 * DAY));
  assert.equal(outcome.result, "ingested", describe(outcome));
  const source = sourcesOf(readPullState(dir), SAVED + 10 * DAY, 36 * HOUR).find(
    (s) => s.kind === "powerbi",
  )!;
  assert.deepEqual(source.window_missed, {
    from: "2026-01-28T22:00:00.000Z",
    to: "2026-02-01T21:00:00.000Z",
    seen_at: new Date(SAVED + 10 * DAY).toISOString(),
  });
  // The metrics say so too: the report's state, and the 96 hours lost.
  const { registry } = createMetrics({
    store: createReadingStore({ dir }),
    datasets: [],
    dir,
    staleAfterMs: 36 * HOUR,
    now: () => SAVED + 10 * DAY,
  });
  const text = await registry.metrics();
  const report = `${CAPACITY} \\(PowerBI report\\)`;
  assert.match(text, new RegExp(`gds_source_state\\{file="${report}",state="current"\\} 1`));
  assert.match(text, new RegExp(`gds_source_window_missed_hours\\{file="${report}"\\} 96`));
  assert.match(
    text,
    new RegExp(
      `gds_source_window_missed_timestamp_seconds\\{file="${report}"\\} ${(SAVED + 10 * DAY) / 1000}`,
    ),
  );
  assert.match(text, new RegExp(`gds_source_state\\{file="${CAPACITY}",state="stopped"\\} 1`));
});

test(
  "PORTAL_POWERBI=0: no report is asked for, and the file is stopped as before",
  { skip: SKIP },
  async (t) => {
    const dir = tempDir(t);
    const stand = await stands(t);
    const result = await pull(dir, stand, SAVED, { enabled: false });
    assert.equal(
      result.files.find((f) => f.via === "powerbi"),
      undefined,
    );
    const file = sourcesOf(readPullState(dir), SAVED, 36 * HOUR).find((s) => s.file === CAPACITY)!;
    assert.deepEqual([file.kind, file.state, file.link], ["csv", "stopped", "gone"]);
    assert.equal(stand.powerbi.requests.length, 0);
    assert.equal(readPullState(dir).reports, undefined);
  },
);

test(
  "a page that stops embedding its report is a failure; one that never did says nothing",
  { skip: SKIP },
  async (t) => {
    const dir = tempDir(t);
    const stand = await stands(t);
    assert.equal((await reportOf(pull(dir, stand))).result, "ingested");
    const bare = livePage().replace(/<iframe\b[^>]*>/g, "");
    stand.portal.on(stand.portal.pagePath(CAPACITY), (_req, res) => (res.writeHead(200).end(bare), true));
    const gone = await reportOf(pull(dir, stand, SAVED + HOUR));
    assert.equal(gone.result, "failed");
    assert.match(
      gone.error!,
      /the page of System_hourly_demand_and_available_capacity\.csv embeds no PowerBI report/,
    );
    assert.equal(capacityHours(dir), 144, "what it stored stays");

    const never = tempDir(t);
    const result = await pull(never, stand, SAVED + HOUR);
    assert.equal(
      result.files.find((f) => f.via === "powerbi"),
      undefined,
    );
    assert.equal(stand.powerbi.requests.length, 3, "only the first pull's");
  },
);

test("no file writes the mark of a report's values: a header naming it is refused", () => {
  const text = "DateTimeKey;Residual Demand;from_powerbi_report\r\n2026-01-23 00:00:00;18979;3\r\n";
  assert.throws(() => parsePortalCsv(text, "forged.csv"), /unknown column "from_powerbi_report"/);
});
