import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { readHistory, readRevisions } from "../src/store/revisions.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { exportCsv, sast, startServer, tempDir, writeFile } from "./helpers.ts";

const H0 = Date.parse("2024-03-01T00:00:00Z");
const hour = (i: number) => sast(H0 + i * 3_600_000);
const STATE = "/api/v1/grid/system-state?start=2024-03-01&end=2024-03-02";
const T1 = Date.parse("2026-01-01T10:00:00Z");
const T2 = Date.parse("2026-01-01T11:00:00Z");

/** First ingest at T1: hours 0-2 with actuals, hour 3 forecast only. Second at T2: a correction and the actual. */
async function revisedStore(t: Parameters<typeof tempDir>[0]) {
  const src = tempDir(t);
  const dir = tempDir(t);
  const first = writeFile(
    src,
    "first.csv",
    exportCsv(
      ["Residual Demand", "Residual Forecast"],
      [
        [hour(0), "20000", "20100"],
        [hour(1), "21000", "21100"],
        [hour(2), "22000", "22100"],
        [hour(3), "", "23100"],
      ],
    ),
  );
  const second = writeFile(
    src,
    "second.csv",
    exportCsv(
      ["Residual Demand"],
      [
        [hour(1), "21500"],
        [hour(3), "23000"],
      ],
    ),
  );
  const a = ingestFiles([first], { dir, now: () => T1 });
  assert.deepEqual([a.hoursAdded, a.hoursRevised], [4, 0]);
  const server = await startServer(t, dir);
  const before = await server.get(STATE);
  const beforeTag = before.headers.get("etag");
  await before.arrayBuffer();
  const b = ingestFiles([second], { dir, now: () => T2 });
  assert.deepEqual(
    [b.hoursAdded, b.hoursRevised],
    [0, 2],
    "a correction and a filled-in actual are revisions",
  );
  return { dir, server, beforeTag };
}

const demand = async (res: Response) =>
  ((await res.json()) as { data: { residual_demand_mw: number | null }[] }).data.map(
    (r) => r.residual_demand_mw,
  );

test("a revision is served at once with a new ETag, and the old value is kept in the day's log", async (t) => {
  const { dir, server, beforeTag } = await revisedStore(t);
  const res = await server.get(STATE);
  assert.notEqual(res.headers.get("etag"), beforeTag);
  assert.deepEqual(await demand(res), [20000, 21500, 22000, 23000]);
  const [revision] = readRevisions(dir, "2024-03-01");
  assert.equal(revision!.at, T2);
  assert.deepEqual(revision!.hours, {
    "2024-03-01T01:00:00Z": { residual_demand: 21000 },
    "2024-03-01T03:00:00Z": { residual_demand: null },
  });
  assert.equal(readHistory(dir).began, T1);
});

test("a revision recorded after a torn line (an append a full disk cut) is kept whole", (t) => {
  const src = tempDir(t);
  const dir = tempDir(t);
  const csv = (value: string) => exportCsv(["Residual Demand"], [[hour(1), value]]);
  ingestFiles([writeFile(src, "first.csv", csv("21000"))], { dir, now: () => T1 });
  // What an append cut by a full disk leaves: the start of a line, with no end.
  appendFileSync(join(dir, "revisions", "2024-03-01.jsonl"), '{"at":"2026-01-01T10:30:00.000Z","hou');
  ingestFiles([writeFile(src, "second.csv", csv("21500"))], { dir, now: () => T2 });
  assert.deepEqual(readRevisions(dir, "2024-03-01"), [
    { at: T2, hours: { "2024-03-01T01:00:00Z": { residual_demand: 21000 } } },
  ]);
});

test("as_of answers with the values as the store held them then, without look-ahead", async (t) => {
  const { server } = await revisedStore(t);
  const at = (instant: string) => server.get(`${STATE}&as_of=${instant}`);
  const then = await at("2026-01-01T10:30:00Z");
  assert.equal(then.status, 200);
  const body = (await then.json()) as { meta: Record<string, unknown>; data: Record<string, unknown>[] };
  assert.deepEqual(
    body.data.map((r) => r.residual_demand_mw),
    [20000, 21000, 22000, null],
    "the old value, and no actual for the hour that had only a forecast",
  );
  assert.equal(body.meta.as_of, "2026-01-01T10:30:00+00:00");
  assert.equal(body.meta.last_available, "2024-03-01T02:00:00+00:00", "the newest actual as it was then");
  assert.deepEqual(
    await demand(await at("2026-01-01T11:00:00Z")),
    [20000, 21500, 22000, 23000],
    "at T2 itself",
  );
  const daily = await server.get(`${STATE}&interval=1d&as_of=2026-01-01T10:30:00%2B00:00`);
  assert.equal(
    ((await daily.json()) as { data: { max_residual_demand_mw: number }[] }).data[0]!.max_residual_demand_mw,
    22000,
  );
  const stress = await server.get(
    `/api/v1/features/grid-stress?start=2024-03-01&end=2024-03-02&as_of=2026-01-01T10:30:00Z`,
  );
  assert.equal(stress.status, 200);
});

test("a day an ingest tried to create and did not (killed, or a full disk) exists for as_of only from its real creation", async (t) => {
  const src = tempDir(t);
  const dir = tempDir(t);
  const day = (first: string, value: string) =>
    writeFile(src, `${first}.csv`, exportCsv(["Residual Demand"], [[sast(Date.parse(first)), value]]));
  ingestFiles([day("2024-03-01T00:00:00Z", "20000")], { dir, now: () => T1 });
  // An ingest at 10:30 that would create 2024-03-02 recorded it and failed before its commit: the
  // line it left in days.jsonl is what a kill or a full disk after the revisions leaves.
  const T_FAILED = Date.parse("2026-01-01T10:30:00Z");
  appendFileSync(
    join(dir, "revisions", "days.jsonl"),
    JSON.stringify({ at: new Date(T_FAILED).toISOString(), days: ["2024-03-02"] }) + "\n",
  );
  ingestFiles([day("2024-03-02T00:00:00Z", "21000")], { dir, now: () => T2 });
  assert.equal(readHistory(dir).created.get("2024-03-02"), T2, "created when its ingest committed");
  const server = await startServer(t, dir);
  const at = (instant: string) =>
    server.get(`/api/v1/grid/system-state?start=2024-03-02&end=2024-03-03&as_of=${instant}`);
  assert.deepEqual(await demand(await at("2026-01-01T10:45:00Z")), [], "not yet there at 10:45");
  assert.deepEqual(await demand(await at("2026-01-01T11:00:00Z")), [21000], "there from 11:00");
});

test("as_of in the future, before the first ingest, or malformed is a 400 invalid_parameter", async (t) => {
  const { server } = await revisedStore(t);
  const cases: [string, RegExp][] = [
    ["2999-01-01T00:00:00Z", /'as_of' is in the future/],
    ["2025-12-31T00:00:00Z", /before the first recorded ingest: it began at 2026-01-01T10:00:00/],
    ["yesterday", /'as_of' must be an ISO-8601 date-time/],
  ];
  for (const [value, detail] of cases) {
    const res = await server.get(`${STATE}&as_of=${value}`);
    assert.equal(res.status, 400, value);
    const body = (await res.json()) as { error: string; detail: string };
    assert.equal(body.error, "invalid_parameter");
    assert.match(body.detail, detail);
  }
});

test("the store reads its history once per change: the same answer until an ingest, then the new one", (t) => {
  const dir = tempDir(t);
  const file = (name: string, day: string) =>
    writeFile(dir, name, exportCsv(["Residual Demand"], [[`${day} 01:00:00 AM`, "20000.0"]]));
  ingestFiles([file("a.csv", "2025-01-01")], { dir });
  const store = createReadingStore({ dir });
  const first = store.history();
  assert.equal(store.history(), first, "not reread while nothing changed");
  assert.deepEqual([...first.created.keys()], ["2024-12-31"]);
  ingestFiles([file("b.csv", "2025-01-05")], { dir });
  const second = store.history();
  assert.notEqual(second, first);
  assert.deepEqual(second, readHistory(dir));
  assert.ok(second.created.has("2025-01-04"), "the new ingest's day is in it");
});
