/**
 * `grid.load_reduction` and `grid.availability`: every hour and day of the real 2018 export against
 * a recomputation from the raw file written here (not the service's parser), the February 2023
 * live files' load shedding, nulls kept null, CSV, and as_of on a revised hour.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import {
  exportCsv,
  REAL_DATA_DIR,
  REAL_DATA_SKIP,
  sast,
  startServer,
  tempDir,
  writeFile,
} from "./helpers.ts";
import { export2018Store, liveSnapshotStore } from "./fixture-stores.ts";

const HOUR = 3_600_000;
const LR = "/api/v1/grid/load-reduction";
const AV = "/api/v1/grid/availability";
const UNLIMITED = { normalized_data: 1_000_000 };

const RAW_COLUMNS = ["mlr", "ils", "ios", "installed", "pclf", "uclf", "oclf"] as const;
type Row = { hour: number } & Record<(typeof RAW_COLUMNS)[number], number | null>;

/** The 2018 export read independently: by header position (every column used sits before the quirk). */
function rawExport(): Row[] {
  const lines = readFileSync(join(REAL_DATA_DIR, "eskom_data_v1-1.csv"), "utf8").trimEnd().split(/\r?\n/);
  const header = lines[0]!.split(",");
  const at = (name: string) => header.indexOf(name);
  const columns = {
    mlr: at("Manual Load_Reduction(MLR)"),
    ils: at("ILS Usage"),
    ios: at("IOS Excl ILS and MLR"),
    installed: at("Installed Eskom Capacity"),
    pclf: at("Total PCLF"),
    uclf: at("Total UCLF"),
    oclf: at("Total OCLF"),
  };
  assert.ok(Math.max(...Object.values(columns)) < at("Total UCLF+OCLF"));
  return lines.slice(1).map((line) => {
    const fields = line.split(",");
    const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):00:00 (AM|PM)$/.exec(fields[0]!)!;
    const h12 = Number(m[4]) % 12;
    const h24 = m[5] === "PM" ? h12 + 12 : h12;
    const hour = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), h24) - 2 * HOUR; // SAST
    const value = (name: (typeof RAW_COLUMNS)[number]) => {
      const text = fields[columns[name]]!.trim();
      return text === "" ? null : Number(text);
    };
    return { hour, ...Object.fromEntries(RAW_COLUMNS.map((name) => [name, value(name)])) } as Row;
  });
}

const close = (actual: unknown, expected: number | null, what: string) => {
  if (expected === null) return assert.equal(actual, null, what);
  assert.ok(
    typeof actual === "number" && Math.abs(actual - expected) <= 1e-6 + 5e-4,
    `${what}: ${String(actual)} vs ${expected}`,
  );
};
const sum3 = (a: number | null, b: number | null, c: number | null) =>
  a === null || b === null || c === null ? null : a + b + c;

test(
  "both datasets answer every hour and day of the real 2018 export as a recomputation from the raw file",
  { skip: REAL_DATA_SKIP },
  async (t) => {
    const storeDir = await export2018Store();
    const server = await startServer(t, tempDir(t), { limits: UNLIMITED, storeDir });
    const raw = rawExport();
    const range = `start=${new Date(raw[0]!.hour).toISOString()}&end=${new Date(raw.at(-1)!.hour + HOUR).toISOString()}`;
    const hourly = async (path: string) =>
      new Map(
        (
          (await (await server.get(`${path}?${range}`)).json()) as { data: Record<string, number | null>[] }
        ).data.map((r) => [Date.parse(String(r.ts)), r]),
      );
    const lr = await hourly(LR);
    const av = await hourly(AV);
    for (const row of raw) {
      const at = new Date(row.hour).toISOString();
      const l = lr.get(row.hour)!;
      close(l.manual_load_reduction_mw, row.mlr, `${at} MLR`);
      close(l.interruptible_load_mw, row.ils, `${at} ILS`);
      close(l.other_interruptions_mw, row.ios, `${at} IOS`);
      close(l.total_load_reduction_mw, sum3(row.mlr, row.ils, row.ios), `${at} total`);
      const a = av.get(row.hour)!;
      const left = row.installed === null ? null : sum3(row.pclf, row.uclf, row.oclf);
      const availableMw = left === null ? null : row.installed! - left;
      close(a.installed_capacity_mw, row.installed, `${at} installed`);
      close(a.unplanned_outages_mw, row.uclf, `${at} UCLF`);
      close(a.available_capacity_mw, availableMw, `${at} available`);
      close(
        a.energy_availability_factor_pct,
        availableMw === null ? null : (100 * availableMw) / row.installed!,
        `${at} EAF`,
      );
    }
    // Days: sums, maxima, counts and the energy-weighted EAF, over the hours of each UTC day.
    const days = new Map<string, Row[]>();
    for (const row of raw) {
      const key = new Date(row.hour).toISOString().slice(0, 10);
      days.set(key, [...(days.get(key) ?? []), row]);
    }
    const daily = async (path: string) =>
      new Map(
        (
          (await (await server.get(`${path}?${range}&interval=1d`)).json()) as {
            data: Record<string, number | null>[];
          }
        ).data.map((r) => [String(r.date), r]),
      );
    const lrDays = await daily(LR);
    const avDays = await daily(AV);
    assert.ok(lrDays.size >= 120);
    for (const [key, rows] of days) {
      if (!lrDays.has(key)) continue; // a day only partly inside the range is not asked for
      const known = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
      const mlr = known(rows.map((r) => r.mlr));
      const l = lrDays.get(key)!;
      close(
        l.manual_load_reduction_mwh,
        mlr.length ? mlr.reduce((a, b) => a + b, 0) : null,
        `${key} MLR MWh`,
      );
      close(l.manual_load_reduction_max_mw, mlr.length ? Math.max(...mlr) : null, `${key} MLR max`);
      assert.equal(l.hours_with_manual_load_reduction, mlr.length ? mlr.filter((x) => x > 0).length : null);
      const totals = known(rows.map((r) => sum3(r.mlr, r.ils, r.ios)));
      close(
        l.total_load_reduction_mwh,
        totals.length ? totals.reduce((a, b) => a + b, 0) : null,
        `${key} total MWh`,
      );
      assert.equal(l.hours, rows.length);
      let num = 0;
      let den = 0;
      for (const r of rows) {
        const left = sum3(r.pclf, r.uclf, r.oclf);
        if (r.installed === null || left === null) continue;
        num += r.installed - left;
        den += r.installed;
      }
      close(
        avDays.get(key)!.energy_availability_factor_pct,
        den === 0 ? null : (100 * num) / den,
        `${key} EAF`,
      );
    }
  },
);

test(
  "the February 2023 live files: load shedding in every published hour, and no availability record",
  { skip: REAL_DATA_SKIP },
  async (t) => {
    const storeDir = await liveSnapshotStore();
    const server = await startServer(t, tempDir(t), { limits: UNLIMITED, storeDir });
    const range = "start=2023-02-13T22:00:00Z&end=2023-02-19T22:00:00Z";
    const hours = (
      (await (await server.get(`${LR}?${range}`)).json()) as { data: { manual_load_reduction_mw: number }[] }
    ).data;
    assert.equal(hours.length, 144);
    assert.ok(
      hours.every((h) => h.manual_load_reduction_mw > 0),
      "MLR > 0 in all 144 published hours",
    );
    // The deepest hour: 4,880.211 MW at 20:00 SAST on 19 February (18:00 UTC).
    const deepest = hours.reduce((a, b) => (b.manual_load_reduction_mw > a.manual_load_reduction_mw ? b : a));
    assert.deepEqual(deepest, {
      ...deepest,
      ts: "2023-02-19T18:00:00+00:00",
      manual_load_reduction_mw: 4880.211,
    });
    const av = (await (await server.get(`${AV}?${range}`)).json()) as { data: unknown[] };
    assert.deepEqual(av.data, [], "the live files carry no capacity or outage columns: never 0");
  },
);

test("nulls stay null: a missing part makes the total null, and days skip nulls rather than count them as 0", async (t) => {
  const dir = tempDir(t);
  const day = Date.parse("2024-03-05T00:00:00Z");
  const rows = [
    [sast(day), 1000, 200, 10, 46000, 4000, 12000, 900],
    [sast(day + HOUR), "", 200, 10, 46000, "", 12000, 900],
    [sast(day + 2 * HOUR), 0, "", 5, "", "", "", ""],
  ];
  const columns = [
    "Manual Load_Reduction(MLR)",
    "ILS Usage",
    "IOS Excl ILS and MLR",
    "Installed Eskom Capacity",
    "Total PCLF",
    "Total UCLF",
    "Total OCLF",
  ];
  ingestFiles([writeFile(tempDir(t), "ESK1.csv", exportCsv(columns, rows))], { dir });
  const server = await startServer(t, dir, { limits: UNLIMITED });
  const q = "start=2024-03-05&end=2024-03-06";
  const h = ((await (await server.get(`${LR}?${q}`)).json()) as { data: Record<string, unknown>[] }).data;
  assert.deepEqual(
    h.map((r) => [r.manual_load_reduction_mw, r.total_load_reduction_mw]),
    [
      [1000, 1210],
      [null, null],
      [0, null],
    ],
  );
  const d = (
    (await (await server.get(`${LR}?${q}&interval=1d`)).json()) as { data: Record<string, unknown>[] }
  ).data;
  assert.deepEqual(d, [
    {
      date: "2024-03-05",
      manual_load_reduction_mwh: 1000,
      manual_load_reduction_max_mw: 1000,
      hours_with_manual_load_reduction: 1,
      total_load_reduction_mwh: 1210,
      hours: 3,
    },
  ]);
  const a = ((await (await server.get(`${AV}?${q}`)).json()) as { data: Record<string, unknown>[] }).data;
  assert.deepEqual(
    a.map((r) => [r.available_capacity_mw, r.energy_availability_factor_pct]),
    [
      [29100, 63.261],
      [null, null],
    ],
  );
  const ad = (
    (await (await server.get(`${AV}?${q}&interval=1d`)).json()) as { data: Record<string, unknown>[] }
  ).data;
  assert.equal(ad[0]!.energy_availability_factor_pct, 63.261);
  assert.equal(ad[0]!.avg_planned_outages_mw, 4000);
  // CSV: the fields in order.
  const csv = await (await server.get(`${LR}?${q}&interval=1d&format=csv`)).text();
  assert.equal(
    csv.split("\r\n")[0],
    "date,manual_load_reduction_mwh,manual_load_reduction_max_mw,hours_with_manual_load_reduction,total_load_reduction_mwh,hours",
  );
  const hourlyCsv = await (await server.get(`${AV}?${q}&format=csv`)).text();
  assert.equal(
    hourlyCsv.split("\r\n")[0],
    "ts,installed_capacity_mw,planned_outages_mw,unplanned_outages_mw,other_outages_mw,available_capacity_mw,energy_availability_factor_pct,available_capacity_incl_non_comm_mw,uclf_oclf_mw,source",
  );
});

test("as_of answers a revised load-shedding hour as it stood before the revision", async (t) => {
  const dir = tempDir(t);
  const hour = Date.parse("2024-03-05T18:00:00Z");
  const file = (mlr: number) =>
    writeFile(tempDir(t), "ESK.csv", exportCsv(["Manual Load_Reduction(MLR)"], [[sast(hour), mlr]]));
  ingestFiles([file(2000)], { dir });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const between = new Date().toISOString();
  await new Promise((resolve) => setTimeout(resolve, 20));
  ingestFiles([file(3000)], { dir });
  const server = await startServer(t, dir, { limits: UNLIMITED });
  const q = "start=2024-03-05T18:00:00Z&end=2024-03-05T19:00:00Z";
  const now = (await (await server.get(`${LR}?${q}`)).json()) as {
    data: { manual_load_reduction_mw: number }[];
  };
  const then = (await (await server.get(`${LR}?${q}&as_of=${between}`)).json()) as {
    data: { manual_load_reduction_mw: number }[];
  };
  assert.equal(now.data[0]!.manual_load_reduction_mw, 3000);
  assert.equal(then.data[0]!.manual_load_reduction_mw, 2000);
});

test("both datasets are in the catalog and the OpenAPI document, every field described", async (t) => {
  const server = await startServer(t, tempDir(t));
  const catalog = (await (await server.get("/api/v1/datasets")).json()) as {
    datasets: { id: string; path: string; fields: Record<string, { name: string; description: string }[]> }[];
  };
  const ids = catalog.datasets.map((d) => d.id);
  assert.ok(ids.includes("grid.load_reduction") && ids.includes("grid.availability"));
  for (const d of catalog.datasets.filter((x) => x.id.startsWith("grid.l") || x.id === "grid.availability")) {
    for (const fields of Object.values(d.fields))
      for (const f of fields) assert.ok(f.description.length > 10, f.name);
  }
  const doc = (await (await server.raw("/api/v1/openapi.json")).json()) as { paths: Record<string, unknown> };
  assert.ok(doc.paths[LR] && doc.paths[AV]);
});
