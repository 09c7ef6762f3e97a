/**
 * The real downloads of the portal (../shared/data/eskom/portal_history/, the 2023-02-21 snapshot
 * and the 2026 build-up), replayed day after day through a loopback portal with the clock at each
 * download's time: pages whose links move between upload folders and get renamed, an HTML page
 * where a CSV should be, header-only files, the scrambled publication of 2023-04-24, the switch
 * from ';' to ','. The store must equal a recomputation written here, independently of the
 * service's parser: the newest download wins, cell by cell; uncertain rows, files mostly
 * uncertain, and the bad publication are left out; no actual value for an hour that begins more
 * than an hour after its download. Eskom's 3-month forecast goes to its issues, never to the
 * readings: every distinct download is an issue, served as it was.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PullResult } from "../src/pull/pull.ts";
import { columnIndex, columns } from "../src/source/columns.ts";
import { createReadingStore, type ReadingStore } from "../src/store/reading-store.ts";
import { storeAsOf } from "../src/store/as-of-view.ts";
import { readHistory } from "../src/store/revisions.ts";
import { replayArchive } from "../src/pull/replay.ts";
import { V2_COMPONENTS } from "../src/features/stress-v2.ts";
import { skipUnless, snapshotDir, startServer, tempDir } from "./helpers.ts";
import { startPortal } from "./portal-stand-in.ts";
import {
  BUILD_UP,
  CAPACITY,
  DEMAND,
  type Download,
  downloads,
  FILES,
  FORECAST,
  HISTORY,
  OUTAGES,
  PUMPED,
  RENEWABLES,
  replayDownloads,
  YESTERDAY,
} from "./portal-history.ts";

const SKIP = skipUnless(
  existsSync(HISTORY),
  `the portal's downloads are not at ${HISTORY}; these tests need ../shared/data/eskom beside the checkout`,
);
const HOUR = 3_600_000;

/** The files of the scrambled publication of 2023-04-24 (SOURCE.md): their values are out of bounds. */
const SCRAMBLED = new Set([BUILD_UP, YESTERDAY, DEMAND, RENEWABLES]);

type Cells = Map<string, number>;
const LIMITS = new Set(
  ["drakensberg", "palmiet", "ingula"].flatMap((s) => [`${s}_max_hours`, `${s}_min_hours`]),
);
/** Columns kept for hours to come: forecasts, and the reservoirs' limits. */
const KEPT_AHEAD = new Set(["residual_forecast", "rsa_contracted_forecast", ...LIMITS]);
const STAMPS = new Set(["date_time_hour_beginning", "datetimekey", "date"]);
/** Columns of a file that another file is the source of. */
const NOT_STORED: Record<string, readonly string[]> = {
  [CAPACITY]: ["residual_demand", "rsa_contracted_demand"],
  [PUMPED]: [
    "eskom_ocgt_generation",
    "eskom_gas_generation",
    "dispatchable_ipp_ocgt",
    "manual_load_reduction_mlr",
  ],
};

// Which v2 components the published rule can compute at `hour` from the recomputed cells: a window
// needs half its hours, supply needs every part, interruptible load either of its two columns.
function v2Presence(cells: Map<number, Cells>, hour: number): Record<string, boolean> {
  const has = (h: number, name: string) => cells.get(h)?.has(name) === true;
  const count = (from: number, to: number, ok: (h: number) => boolean) => {
    let n = 0;
    for (let h = from; h <= to; h += HOUR) if (ok(h)) n++;
    return n;
  };
  const SUPPLY_PARTS = [
    "thermal_generation",
    "nuclear_generation",
    "eskom_gas_generation",
    "eskom_ocgt_generation",
    "hydro_water_generation",
    "pumped_water_generation",
    "dispatchable_ipp_ocgt",
    "international_imports",
  ];
  const supplied = (h: number) => SUPPLY_PARTS.every((name) => has(h, name));
  const diesel = (h: number) => has(h, "eskom_ocgt_generation");
  const bestDay = count(hour - 24 * HOUR, hour - HOUR, supplied) >= 12;
  const bestWeek = count(hour - 168 * HOUR, hour - HOUR, supplied) >= 84;
  return {
    diesel_day: count(hour - 23 * HOUR, hour, diesel) >= 12,
    diesel_week: count(hour - 167 * HOUR, hour, diesel) >= 84,
    supply_gap: bestDay && has(hour, "residual_forecast"),
    fleet_decline: bestDay && bestWeek,
    pumped_storage_low: ["drakensberg", "palmiet", "ingula"].every((s) => has(hour, `${s}_gen_unit_hours`)),
    interruptible_load: has(hour, "ils_usage") || has(hour, "ios_excl_ils_and_mlr"),
    evening_peak: true,
  };
}

// The capacity file's renewables counted twice must agree: with less without capacity, and
// contracted less residual demand (the first in whole MW, the second in kW).
function capacityRowHolds(cells: Cells): boolean {
  const get = (name: string) => cells.get(name);
  const [a, are, r, c] = [
    "available_capacity_incl_non_comm_units",
    "available_capacity_incl_non_comm_units_incl_total_re",
    "residual_demand",
    "rsa_contracted_demand",
  ].map(get);
  if (a === undefined && are === undefined) return true;
  if (a === undefined || are === undefined || r === undefined || c === undefined) return false;
  return Math.abs(are - a - (c - r)) <= 1;
}
const snake = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

function sastToUtc(stamp: string): number {
  const [date, time] = stamp.trim().split(" ");
  const [y, m, d] = date!.split("-").map(Number);
  return Date.UTC(y!, m! - 1, d, Number(time!.slice(0, 2))) - 2 * HOUR;
}

/** The rows a download of one file contributes, or undefined when none (refused whole). */
function referenceRows(body: Buffer, at: number, file: string): Map<number, Cells> | undefined {
  const text = body.toString("utf8");
  if (text.trimStart().startsWith("<")) return undefined; // an error page
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const delimiter = lines[0]!.includes(";") ? ";" : ",";
  const names = lines[0]!.split(delimiter).map(snake);
  const rows = new Map<number, Cells>();
  let uncertain = 0;
  let withValues = 0;
  for (const line of lines.slice(1)) {
    let fields = line.split(delimiter);
    if (fields.every((f, i) => f === "" || STAMPS.has(names[i]!))) continue; // blank
    withValues++;
    if (delimiter === ";") fields = fields.map((f) => f.replace(",", "."));
    else if (fields.length !== names.length) {
      // Every non-blank value split in two: one field more per value. A blank is one empty field.
      const stamps = names.filter((n) => STAMPS.has(n)).length; // stamps hold no comma
      const values = names.length - stamps - fields.filter((f) => f === "").length;
      if (fields.length !== names.length + values) {
        uncertain++;
        continue;
      }
      const joined: string[] = [];
      let f = 0;
      for (const name of names) {
        const field = fields[f++]!;
        joined.push(STAMPS.has(name) || field === "" ? field : `${field}.${fields[f++]}`);
      }
      fields = joined;
    }
    const hour = sastToUtc(fields[names.findIndex((n) => STAMPS.has(n))]!);
    const cells: Cells = new Map();
    names.forEach((name, i) => {
      if (!STAMPS.has(name) && fields[i] !== "") cells.set(name, Number(fields[i]));
    });
    if (file === CAPACITY && !capacityRowHolds(cells)) {
      uncertain++;
      continue;
    }
    for (const name of NOT_STORED[file] ?? []) cells.delete(name);
    // Unpublished: nothing, or zeros beside the reservoirs' limits (which describe the plant).
    if ([...cells].every(([name, v]) => v === 0 || LIMITS.has(name))) {
      withValues--;
      continue;
    }
    if (hour > at + HOUR) for (const name of cells.keys()) if (!KEPT_AHEAD.has(name)) cells.delete(name);
    if (cells.size > 0) rows.set(hour, cells);
  }
  return uncertain * 2 > withValues ? undefined : rows;
}

/** The store after the downloads up to and including `until`. */
function recompute(list: readonly Download[], until: number): Map<number, Cells> {
  const store = new Map<number, Cells>();
  for (const download of list) {
    if (download.at > until) break;
    for (const file of FILES) {
      if (file === FORECAST) continue; // its issues are kept apart
      if (download.name.startsWith("2023_04_24") && SCRAMBLED.has(file)) continue;
      const body = download.files.get(file);
      const rows = body === undefined ? undefined : referenceRows(body, download.at, file);
      for (const [hour, cells] of rows ?? []) {
        const stored = store.get(hour) ?? new Map<string, number>();
        // Yesterday's build-up fills what the 7-day one did not give; it never replaces a value.
        for (const [name, value] of cells)
          if (file !== YESTERDAY || !stored.has(name)) stored.set(name, value);
        store.set(hour, stored);
      }
    }
  }
  return store;
}

/** What the store holds (or held then), as hour -> column -> value. */
function storeCells(store: ReadingStore): Map<number, Cells> {
  const out = new Map<number, Cells>();
  for (const key of store.refresh().manifest.keys()) {
    const day = store.day(key)!;
    day.hours.forEach((reading, h) => {
      if (reading === undefined) return;
      const cells: Cells = new Map();
      columns.forEach((column, c) => Number.isNaN(reading[c]!) || cells.set(column.name, reading[c]!));
      out.set(day.start + h * HOUR, cells);
    });
  }
  return out;
}

function assertSameStore(actual: Map<number, Cells>, expected: Map<number, Cells>, when: string): void {
  const hours = (m: Map<number, Cells>) => [...m.keys()].sort((a, b) => a - b);
  assert.deepEqual(
    hours(actual).map((h) => new Date(h).toISOString()),
    hours(expected).map((h) => new Date(h).toISOString()),
    `${when}: the same hours`,
  );
  for (const [hour, cells] of expected) {
    const got = Object.fromEntries([...actual.get(hour)!].sort());
    assert.deepEqual(got, Object.fromEntries([...cells].sort()), `${when}: ${new Date(hour).toISOString()}`);
  }
}

test(
  "real downloads replayed day after day: every pull ends clearly, the store equals the recomputation, as_of gives each day's store",
  { skip: SKIP },
  async (t) => {
    const list = downloads();
    const stand = await startPortal(t);
    const dir = tempDir(t);
    const results: { download: Download; result: PullResult }[] = [];
    results.push(...(await replayDownloads(stand, dir, list)));

    const outcome = (name: string, file: string) =>
      results.find((r) => r.download.name.startsWith(name))!.result.files.find((f) => f.file === file)!;
    const [build, demand, renewables] = [BUILD_UP, DEMAND, RENEWABLES];
    for (const { result, download } of results) {
      assert.ok(result.unreachable === undefined, download.name);
      for (const f of result.files) {
        assert.ok(
          ["not-modified", "unchanged", "ingested", "issued", "refused", "failed"].includes(f.result),
          `${download.name} ${f.file}: ${f.result}`,
        );
        // A header-only body is a file gone empty: a failure while that is new, never a crash.
        if (f.result === "failed") assert.match(f.error!, /header row only/, `${download.name} ${f.file}`);
        if (f.error !== undefined) assert.doesNotMatch(f.error, /\n\s+at /, "no stack trace");
      }
    }
    assert.deepEqual(
      results[0]!.result.files.map((f) => f.result),
      ["ingested", "ingested", "ingested", "ingested", "ingested", "ingested", "ingested", "issued"],
    );
    assert.match(outcome("2023_01_10", renewables).error!, /HTML page/);
    assert.equal(
      outcome("portal_snapshot", build).result,
      "ingested",
      "found in the upload folder while its page was down",
    );
    for (const file of FILES) assert.match(outcome("2023_03_14", file).error!, /header row only/);
    assert.match(outcome("2023_04_24", build).error!, /outside its bounds/);
    assert.match(outcome("2023_04_24", demand).error!, /"Residual Forecast" is 0 MW, outside its bounds/);
    assert.match(outcome("2023_04_24", renewables).error!, /"CSP" is -2153 MW, outside its bounds/);
    assert.match(
      outcome("2023_04_30", build).error!,
      /144 of its 144 rows with values cannot be read with certainty/,
    );
    assert.equal(
      outcome("2023_04_30", demand).result,
      "ingested",
      "the ',' form after the ';' one: no refusal",
    );
    assert.equal(outcome("2023_04_30", demand).skipped!.uncertain, 2);
    assert.match(
      outcome("2023_04_30", demand).linkChanged!.to,
      /\/2023\/04\/System_hourly_actual_and_forecasted_demand-1\.csv$/,
    );
    assert.equal(outcome("2023_04_30", renewables).skipped!.uncertain, 669);
    assert.equal(
      outcome("2023_05_05", renewables).skipped!.placeholder,
      720,
      "the zero rows to May 31 are not readings",
    );
    assert.equal(outcome("portal_2026", build).result, "ingested");

    const store = createReadingStore({ dir });
    assertSameStore(storeCells(store), recompute(list, Infinity), "after the last download");

    // as_of at an instant between two downloads answers what the store held then, with no actual
    // value for an hour that begins more than an hour after the download that brought it.
    const history = readHistory(dir);
    const actual = new Set(columns.filter((c) => c.kind === "actual").map((c) => c.name));
    for (const [i, download] of list.entries()) {
      const between = i + 1 < list.length ? (download.at + list[i + 1]!.at) / 2 : download.at + HOUR;
      const then = storeCells(storeAsOf(store, history, between));
      assertSameStore(then, recompute(list, between), `as of ${new Date(between).toISOString()}`);
      for (const [hour, cells] of then) {
        if ([...cells.keys()].some((name) => actual.has(name))) {
          assert.ok(
            hour <= download.at + HOUR,
            `${new Date(hour).toISOString()} has actuals before it happened`,
          );
        }
      }
    }

    // Served as Eskom's, at the right UTC hour: 2023-05-01 00:00 SAST is 2023-04-30 22:00 UTC.
    const server = await startServer(t, dir);
    const res = await server.get(
      "/api/v1/grid/system-state?start=2023-04-30T22:00:00Z&end=2023-04-30T23:00:00Z",
    );
    const [state] = ((await res.json()) as { data: Record<string, number>[] }).data;
    const expected = recompute(list, Infinity);
    const midnight = expected.get(Date.parse("2023-04-30T22:00:00Z"))!;
    assert.equal(state!.residual_demand_mw, Math.round(midnight.get("residual_demand")! * 1000) / 1000);
    const asOf = await server.get(
      `/api/v1/grid/system-state?start=2023-04-30T22:00:00Z&end=2023-04-30T23:00:00Z&as_of=2023-05-01T00:00:00Z`,
    );
    const [before] = ((await asOf.json()) as { data: Record<string, number | null>[] }).data;
    const atThen = recompute(list, Date.parse("2023-05-01T00:00:00Z")).get(
      Date.parse("2023-04-30T22:00:00Z"),
    )!;
    assert.equal(
      before!.residual_demand_mw,
      atThen.has("residual_demand") ? atThen.get("residual_demand") : null,
    );

    // The four other files of the readings, each in every form it has had.
    assert.equal(
      outcome("2022_10_19", CAPACITY).result,
      "ingested",
      "',' with decimal commas, every value split",
    );
    assert.match(
      outcome("2023_04_24", CAPACITY).error!,
      /144 of its 144 rows with values cannot be read with certainty \(its capacity with renewables less without must equal RSA contracted less residual demand/,
    );
    assert.equal(
      outcome("2023_04_24", OUTAGES).result,
      "ingested",
      "the outage trend of the bad batch is sound",
    );
    assert.equal(outcome("2023_04_30", OUTAGES).result, "ingested", "two stamp columns, values split");
    assert.match(outcome("2023_05_05", OUTAGES).error!, /HTML page/);
    assert.equal(outcome("2023_04_24", PUMPED).result, "ingested");
    assert.match(outcome("2023_04_30", PUMPED).error!, /cannot be read with certainty/);
    assert.equal(outcome("2023_05_05", PUMPED).result, "ingested");
    assert.match(outcome("2023_04_24", YESTERDAY).error!, /outside its bounds/);

    const served = async (path: string) =>
      ((await (await server.get(path)).json()) as { data: Record<string, number | string | null>[] }).data;
    const r3 = (v: number | undefined) => (v === undefined ? null : Math.round(v * 1000) / 1000);
    // Served as Eskom's, at the right UTC hour: 2023-04-28 12:00 SAST is 10:00 UTC.
    const noon = Date.parse("2023-04-28T10:00:00Z");
    const range = "start=2023-04-28T10:00:00Z&end=2023-04-28T11:00:00Z";
    const [margin] = await served(`/api/v1/grid/supply-margin?${range}`);
    const cells = expected.get(noon)!;
    assert.equal(margin!.available_capacity_incl_non_comm_mw, 27843.846, "the raw file's 27843.846000000001");
    assert.equal(
      margin!.available_capacity_incl_non_comm_mw,
      r3(cells.get("available_capacity_incl_non_comm_units")),
    );
    assert.equal(margin!.residual_demand_mw, r3(cells.get("residual_demand")));
    assert.equal(
      margin!.margin_mw,
      r3(cells.get("available_capacity_incl_non_comm_units")! - cells.get("residual_demand")!),
    );
    // 2023-04-10 10:00 SAST, from the pumped-storage file of 2023-04-24 (the one of 04-30 is refused).
    const [levels] = await served(
      "/api/v1/grid/pumped-storage?start=2023-04-10T08:00:00Z&end=2023-04-10T09:00:00Z",
    );
    const then = expected.get(Date.parse("2023-04-10T08:00:00Z"))!;
    assert.deepEqual(
      [levels!.palmiet_hours, levels!.ingula_hours, levels!.drakensberg_hours, levels!.drakensberg_max_hours],
      [29.4, 56.05, 96, 102],
      "the raw row 2023-04-10 10:00:00;...;29,399999999999999;56,049999999999997;96;58,7;67;102",
    );
    assert.equal(levels!.ingula_hours, r3(then.get("ingula_gen_unit_hours")));
    const [outage] = await served(
      `/api/v1/grid/availability?start=2023-04-13T22:00:00Z&end=2023-04-13T23:00:00Z`,
    );
    assert.equal(
      outage!.uclf_oclf_mw,
      r3(expected.get(Date.parse("2023-04-13T22:00:00Z"))!.get("hourly_uclf_oclf")),
    );
    // A store kept by the pull alone has v1's reserve margin where the capacity file gave capacity.
    const [stress] = await served(`/api/v1/features/grid-stress?${range}&components=true&version=v1`);
    const components = stress!.components as unknown as Record<string, number | null>;
    assert.notEqual(components.reserve_margin, null);
    // v2, the default: with the pull alone, a component is null only where the recomputed store
    // lacks its inputs (by the published rule), never because a column is the export's alone.
    const v2 = [
      ...(await served(`/api/v1/features/grid-stress?start=2022-10-01&end=2022-10-25&components=true`)),
      ...(await served(`/api/v1/features/grid-stress?start=2023-04-10&end=2023-05-06&components=true`)),
    ];
    const computed: Record<string, number> = {};
    for (const r of v2) {
      const hour = Date.parse(r.ts as string);
      const present = v2Presence(expected, hour);
      for (const [name, c] of Object.entries(r.components as unknown as Record<string, number | null>)) {
        assert.equal(c !== null, present[name], `${r.ts as string} ${name}`);
        if (c !== null) computed[name] = (computed[name] ?? 0) + 1;
      }
    }
    for (const name of V2_COMPONENTS) assert.ok(computed[name]! >= 48, `${name} in ${computed[name]} hours`);

    // Eskom's 3-month forecast: every distinct download an issue, stamped when it was received.
    const issue = (name: string) => outcome(name, FORECAST);
    for (const name of [
      "2022_10_19",
      "2023_02_12",
      "2023_02_15T11",
      "2023_04_24",
      "2023_04_30",
      "2023_05_05",
    ])
      assert.equal(issue(name).result, "issued", name);
    // The download of 12:00 is byte for byte the one of 11:49 (SOURCE.md's three vintages of
    // February are two issues): the portal answers 304 and no issue is added.
    assert.equal(issue("2023_02_15T12").result, "not-modified");
    assert.match(issue("2023_03_14").error!, /header row only/);
    assert.equal(issue("2023_04_30").skipped!.uncertain, 2, "two rows with a whole value are ambiguous");
    const rawForecast = (download: string, stamp: string) => {
      const text = list
        .find((d) => d.name.startsWith(download))!
        .files.get(FORECAST)!
        .toString("utf8");
      const row = text
        .split(/\r?\n/)
        .find((l) => l.startsWith(stamp))!
        .split(";");
      return { contracted: Number(row[1]!.replace(",", ".")), residual: Number(row[2]!.replace(",", ".")) };
    };
    // 2023-02-20 10:00 SAST is 08:00 UTC; both February issues forecast it.
    const target = "start=2023-02-20T08:00:00Z&end=2023-02-20T09:00:00Z";
    const all = await served(`/api/v1/forecasts/demand?${target}&issues=all`);
    assert.deepEqual(
      all.map((r) => [r.ts, r.issued_at, r.rsa_contracted_forecast_mw, r.residual_forecast_mw]),
      [
        ["2023-02-12T12:00:02Z", rawForecast("2023_02_12", "2023-02-20 10:00:00")],
        ["2023-02-15T11:49:16Z", rawForecast("2023_02_15T11", "2023-02-20 10:00:00")],
      ].map(([at, raw]) => {
        const { contracted, residual } = raw as { contracted: number; residual: number };
        return [
          "2023-02-20T08:00:00+00:00",
          (at as string).replace("Z", "+00:00"),
          r3(contracted),
          r3(residual),
        ];
      }),
    );
    assert.notEqual(all[0]!.residual_forecast_mw, all[1]!.residual_forecast_mw, "two different forecasts");
    const [latest] = await served(`/api/v1/forecasts/demand?${target}`);
    assert.deepEqual(latest, all[1], "by default the newest issue");
    const [earlier] = await served(`/api/v1/forecasts/demand?${target}&as_of=2023-02-15T11:00:00Z`);
    assert.deepEqual(earlier, all[0], "as of before the second issue: the first");
    const [after] = await served(`/api/v1/forecasts/demand?${target}&as_of=2023-02-15T12:30:00Z`);
    assert.deepEqual(after, all[1], "the download of 12:00 made no new issue");
    const [system] = await served(`/api/v1/grid/system-state?${target}`);
    assert.equal(
      system!.residual_forecast_mw,
      r3(expected.get(Date.parse("2023-02-20T08:00:00Z"))?.get("residual_forecast")),
      "the week-ahead forecast stays the demand file's",
    );

    // The archive alone rebuilds the same store, history included, without the portal.
    const rebuilt = tempDir(t);
    const replay = replayArchive(rebuilt, join(dir, "archive"));
    assert.equal(replay.passed, 0);
    const data = (d: string) =>
      Object.fromEntries(
        Object.entries(snapshotDir(d)).filter(([n]) =>
          /^(readings|revisions|forecasts)\/|^manifest\.json$/.test(n),
        ),
      );
    assert.deepEqual(data(rebuilt), data(dir), "the rebuilt store is byte-identical, revisions included");
    assert.equal(columnIndex("residual_demand") >= 0, true);
  },
);
