/**
 * A stopped file read from its page's PowerBI report (`powerbi-portal.ts` sets the scene: the real
 * January 2026 page, its CSV gone, a loopback cluster answering with the real CSV's values encoded
 * as the service encodes data). The stored capacity equals the CSV's hour by hour, each value says
 * where it came from, and the CSV wins where both give an hour.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readAttempts } from "../src/pull/archive.ts";
import { describe } from "../src/pull/pull.ts";
import { replayArchive } from "../src/pull/replay.ts";
import { readPullState } from "../src/pull/pull-state.ts";
import { requireColumn } from "../src/source/columns.ts";
import { clusterApiOf, embeddedReportOf } from "../src/source/powerbi-embed.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { startServer, tempDir } from "./helpers.ts";
import {
  CAPACITY,
  csvText,
  DEMAND,
  csvValue,
  DAY,
  livePage,
  PAGES,
  pull,
  read,
  SAVED,
  SKIP,
  stampOf,
  stands,
  VIEWER,
} from "./powerbi-portal.ts";

test("the page and its viewer say where the report is: its key, tenant and cluster", { skip: SKIP }, () => {
  const report = embeddedReportOf(livePage())!;
  assert.deepEqual(
    [report.resourceKey, report.tenant],
    ["11171a0f-55b7-47b1-97bc-16fa4cd91582", "93aedbdc-cc67-4652-aa12-d250a876ae79"],
  );
  assert.equal(
    clusterApiOf(read(VIEWER)),
    "https://wabi-south-africa-north-a-primary-api.analysis.windows.net",
  );
  assert.equal(
    embeddedReportOf(read(join(PAGES, "system-hourly-demand-and-available-capacity.html"))),
    undefined,
    "the saved page's iframe is a local file",
  );
  assert.equal(
    clusterApiOf("resolvedClusterUri = 'https://evil.example/';"),
    undefined,
    "no host but the cluster's",
  );
});

test(
  "with the CSV dead, the pull reads the report: capacity stored equal to the CSV's, served with its source",
  { skip: SKIP },
  async (t) => {
    const dir = tempDir(t);
    const stand = await stands(t);
    const { powerbi, key } = stand;
    const result = await pull(dir, stand);
    const report = result.files.find((f) => f.via === "powerbi")!;
    assert.equal(report.result, "ingested", describe(report));
    assert.equal(report.hoursAdded! + report.hoursRevised!, 144 + 0, describe(report));
    assert.match(
      describe(report),
      /^System_hourly_demand_and_available_capacity\.csv \(its PowerBI report\): /,
    );
    // One model request and two windows (the cluster gives 100 rows a window), each with the key and
    // the service's name, and nothing asked of any other host.
    assert.deepEqual(
      powerbi.requests.map((r) => `${r.method} ${r.path}`),
      [
        `GET /public/reports/${key}/modelsAndExploration`,
        "POST /public/reports/querydata",
        "POST /public/reports/querydata",
      ],
    );
    assert.ok(powerbi.requests.every((r) => r.key === key && /^grid-data-service\//.test(r.agent ?? "")));

    const server = await startServer(t, dir);
    const body = (await (
      await server.get("/api/v1/grid/supply-margin?start=2026-01-22&end=2026-01-30")
    ).json()) as {
      meta: Record<string, unknown>;
      data: Record<string, unknown>[];
    };
    const hours = body.data.filter((r) => r.available_capacity_incl_non_comm_mw !== null);
    assert.equal(hours.length, 144);
    for (const record of hours) {
      const stamp = stampOf(record.ts as string);
      const round = (n: number) => Math.round(n * 1000) / 1000;
      assert.equal(record.available_capacity_incl_non_comm_mw, round(csvValue(stamp, 1)), stamp);
      assert.equal(record.available_capacity_incl_non_comm_and_re_mw, round(csvValue(stamp, 2)), stamp);
      assert.equal(record.source, "powerbi");
    }
    assert.deepEqual(body.meta.from_powerbi_report, {
      hours: 144 + 0,
      first: "2026-01-22T22:00:00+00:00",
      last: "2026-01-28T21:00:00+00:00",
    });
    // The revision says where the change came from; the pull remembers the report's window.
    assert.match(read(join(dir, "revisions", "2026-01-25.jsonl")), /"source":"powerbi"/);
    const state = readPullState(dir).reports![CAPACITY]!;
    assert.deepEqual(
      [state.resourceKey, state.first, state.newest],
      [key, "2026-01-22T22:00:00.000Z", "2026-01-28T21:00:00.000Z"],
    );
    const attempt = readAttempts(join(dir, "archive")).attempts.find((a) => a.via === "powerbi")!;
    assert.equal(attempt.outcome, "ingested");
    // The archive keeps the report's rows: a replay gives the same store, marks and all.
    const again = tempDir(t);
    const replayed = replayArchive(again, join(dir, "archive"));
    assert.ok(replayed.outcomes.some(({ outcome: o }) => o.via === "powerbi" && o.result === "ingested"));
    const days = (d: string) =>
      createReadingStore({ dir: d })
        .day("2026-01-25")!
        .hours.map((h) => h && [...h]);
    assert.deepEqual(days(again), days(dir));

    // /healthz and the catalog name the report as a source, with its window (late: the service's
    // clock is today's, long after the pull's).
    const health = (await (await server.get("/healthz")).json()) as { sources: Record<string, unknown>[] };
    const source = health.sources.find((s) => s.kind === "powerbi")!;
    assert.deepEqual(
      [source.file, source.stands_in_for, source.state, source.window_first, source.window_last],
      [
        `${CAPACITY} (PowerBI report)`,
        CAPACITY,
        "late",
        "2026-01-22T22:00:00.000Z",
        "2026-01-29T21:00:00.000Z",
      ],
    );
    const catalog = (await (await server.get("/api/v1/datasets")).json()) as {
      datasets: { id: string; sources: { file: string; kind: string }[] }[];
    };
    const margin = catalog.datasets.find((d) => d.id === "grid.supply_margin")!;
    assert.ok(margin.sources.some((s) => s.kind === "powerbi" && s.file === `${CAPACITY} (PowerBI report)`));
  },
);

test(
  "the CSV wins where both give an hour: a report's differing value is counted and named, and a CSV back takes its hours",
  { skip: SKIP },
  async (t) => {
    const dir = tempDir(t);
    // The CSV reaches 2026-01-24 23:00 SAST; then it dies, and stays dead past the three days.
    const stand = await stands(t, { csv: csvText("2026-01-25 00:00:00") });
    // 08:00 UTC: the report says 100 MW more capacity, with and without renewables, than the CSV did.
    const changed = "2026-01-24 10:00:00";
    stand.powerbi.rows = stand.powerbi.rows.map((row) =>
      row[0] === changed
        ? [row[0], (row[1] as number) + 100, (row[2] as number) + 100, row[3] ?? null, row[4] ?? null]
        : row,
    );
    assert.ok((await pull(dir, stand)).ok);
    stand.kill();
    await pull(dir, stand, SAVED + 3_600_000);
    assert.equal(stand.powerbi.requests.length, 0, "a file gone less than three days is not stood in for");
    const result = await pull(dir, stand, SAVED + 4 * DAY);
    const report = result.files.find((f) => f.via === "powerbi")!;
    assert.equal(report.result, "ingested", describe(report));
    assert.deepEqual(report.disagreements, {
      count: 2,
      first: {
        hour: Date.parse("2026-01-24T08:00:00Z"),
        column: "available_capacity_incl_non_comm_units",
        stored: csvValue(changed, 1),
        report: csvValue(changed, 1) + 100,
      },
    });
    assert.match(describe(report), /; 2 of its values differ from the files' by more than rounding/);

    const server = await startServer(t, dir);
    const margin = async () =>
      (await (await server.get("/api/v1/grid/supply-margin?start=2026-01-24&end=2026-01-26")).json()) as {
        meta: Record<string, unknown>;
        data: { ts: string; source: string; available_capacity_incl_non_comm_mw: number | null }[];
      };
    const before = await margin();
    const at = (ts: string) => before.data.find((r) => r.ts === ts)!;
    assert.deepEqual(
      [
        at("2026-01-24T08:00:00+00:00").available_capacity_incl_non_comm_mw,
        at("2026-01-24T08:00:00+00:00").source,
      ],
      [csvValue(changed, 1), "csv"],
    );
    assert.equal(at("2026-01-24T22:00:00+00:00").source, "powerbi", "00:00 SAST on the 25th: the report's");
    assert.deepEqual(before.meta.from_powerbi_report, {
      hours: 26,
      first: "2026-01-24T22:00:00+00:00",
      last: "2026-01-25T23:00:00+00:00",
    });

    // The CSV comes back whole: its hours are its own again, the report no longer read.
    stand.revive(csvText());
    const back = await pull(dir, stand, SAVED + 4 * DAY + 3_600_000);
    assert.equal(
      back.files.find((f) => f.via === "powerbi"),
      undefined,
    );
    const after = await margin();
    assert.ok(after.data.every((r) => r.source === "csv"));
    assert.equal(after.meta.from_powerbi_report, undefined);
    assert.deepEqual(
      after.data.map((r) => r.available_capacity_incl_non_comm_mw),
      before.data.map((r) => r.available_capacity_incl_non_comm_mw),
      "the same values, from the CSV",
    );
  },
);

test(
  "with the demand file behind, the report's demand fills the hours it has not given, until it gives them",
  { skip: SKIP },
  async (t) => {
    const dir = tempDir(t);
    // The demand file reaches 2026-01-25 23:00 SAST; the report, the 28th's 23:00.
    const stand = await stands(t, { demand: csvText("2026-01-26 00:00:00", DEMAND) });
    assert.equal((await pull(dir, stand)).files.find((f) => f.via === "powerbi")!.result, "ingested");
    const server = await startServer(t, dir);
    const get = async (dataset: string) =>
      (await (await server.get(`/api/v1/grid/${dataset}?start=2026-01-25&end=2026-01-29`)).json()) as {
        meta: { from_powerbi_report?: { hours: number; first: string } };
        data: { ts: string; source?: string; residual_demand_mw: number | null }[];
      };
    const first = "2026-01-25T22:00:00+00:00"; // 00:00 SAST on the 26th
    for (const dataset of ["supply-margin", "system-state"]) {
      const { meta, data } = await get(dataset);
      const filled = data.filter((r) => r.ts >= first && r.residual_demand_mw !== null);
      assert.equal(filled.length, 72, dataset);
      for (const r of filled)
        assert.equal(r.residual_demand_mw, Math.round(csvValue(stampOf(r.ts), 3) * 1000) / 1000);
      // Supply margin's records say so; system state's meta counts the hours.
      if (dataset === "supply-margin") assert.ok(filled.every((r) => r.source === "powerbi"));
      assert.equal(meta.from_powerbi_report?.hours, dataset === "supply-margin" ? 94 : 72, dataset);
    }
    // Contracted demand, which no dataset serves, is stored too.
    const contracted = requireColumn("rsa_contracted_demand");
    const stored = createReadingStore({ dir }).day("2026-01-27")!.hours[10]![contracted];
    assert.equal(stored, csvValue("2026-01-27 12:00:00", 4));

    // The demand file catches up: its hours are its own, the capacity still the report's.
    stand.portal.publish(DEMAND, csvText(undefined, DEMAND), { folder: "2026/01" });
    await pull(dir, stand, SAVED + 3_600_000);
    assert.equal((await get("system-state")).meta.from_powerbi_report, undefined);
    const margin = (await get("supply-margin")).data.filter((r) => r.ts >= first);
    assert.ok(
      margin.every((r) => r.source === "powerbi"),
      "its capacity is still the report's",
    );
  },
);
