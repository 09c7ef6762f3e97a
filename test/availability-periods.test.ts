/**
 * The portal's weekly and monthly availability (src/source/period-*.ts, src/store/period-revisions.ts,
 * /api/v1/grid/availability/weekly and /monthly): what a file's rows become or why not, revisions
 * and as_of, the endpoints' range rules and formats, the pull through the loopback portal with the
 * real 2026 download of the weekly outages, and the sample's figures against its hourly ones.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { pullPortal } from "../src/pull/pull.ts";
import { portalFile } from "../src/pull/portal-files.ts";
import { type PeriodFile, parsePeriodCsv } from "../src/source/period-csv.ts";
import { periodForm } from "../src/source/period-forms.ts";
import { PortalCsvError } from "../src/source/portal-csv.ts";
import { PERIODS_DIR, PeriodRevisions } from "../src/store/period-revisions.ts";
import { seedSamplePeriods } from "../src/sample/seed-sample-periods.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, REAL_DATA_DIR, skipUnless, startServer, tempDir } from "./helpers.ts";
import { startPortal } from "./portal-stand-in.ts";

const WEEKLY = "Weekly_Eskom_generation_capacity_breakdown.csv";
const OUTAGES = "Weekly_unplanned_outages.csv";
const MONTHLY = "Monthly_Eskom_generation_capacity_breakdown.csv";
const WEEKLY_HEADER = "Week Start Date,Weekly EAF,Weekly PCLF,Weekly UCLF,Weekly OCLF,Year,Fin_Year";
const MONTHLY_HEADER = "YEAR_MONTH,EAF,PCLF,UCLF,OCLF";
const REAL_OUTAGES = join(REAL_DATA_DIR, "portal_2026", "2026-06-19", OUTAGES);
const SKIP_REAL = skipUnless(
  existsSync(REAL_OUTAGES),
  `the 2026 weekly outages download is not at ${REAL_OUTAGES}; this test needs ../shared/data/eskom beside the checkout`,
);
const JUNE_19 = Date.parse("2026-06-19T04:09:00Z");
const FAST = { timeoutMs: 2000, attempts: 2, backoffMs: 5, maxBackoffMs: 20 };

const crlf = (...lines: string[]) => lines.join("\r\n") + "\r\n";
const read = (text: string, name: string, receivedAt = JUNE_19) =>
  parsePeriodCsv(text, name, { receivedAt, form: periodForm(name) });
const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof PortalCsvError, String(error));
    return error.message;
  }
  assert.fail("the file was read");
};

/** A weekly breakdown as the portal writes it, from its rows. */
const weekly = (...rows: string[]) => crlf(WEEKLY_HEADER, ...rows);

test("a weekly breakdown's rows are kept, or skipped by reason with their first line", () => {
  const file = read(
    weekly(
      "2026-03-30,61.5,10.25,25.75,2.5,2026,2026-27",
      "2026-04-06,58,12,27,3,2026,2026-27",
      "2026-04-07,58,12,27,3,2026,2026-27", // a Tuesday
      "2026-04-13,70,12,27,3,2026,2026-27", // adds up to 112%
      ",,,,,,", // blank
      "2026-04-20,0,0,0,0,2026,2026-27", // the portal's placeholder
      "2026-06-22,60,10,27,3,2026,2026-27", // a week not yet begun on 06-19
      "2026-04-27,60,10,27", // a line cut in the middle of the file
      "30-Mar-2026,61.5,10.25,25.75,2.5,2026,2026-27", // the same week again, the same values
    ),
    WEEKLY,
  );
  assert.deepEqual(
    file.rows.map((r) => [r.period, r.values]),
    [
      [
        "2026-03-30",
        { eaf_pct: 61.5, pclf_pct: 10.25, uclf_pct: 25.75, oclf_pct: 2.5, financial_year: "2026-27" },
      ],
      ["2026-04-06", { eaf_pct: 58, pclf_pct: 12, uclf_pct: 27, oclf_pct: 3, financial_year: "2026-27" }],
    ],
  );
  assert.deepEqual(file.skipped, { blank: 1, placeholder: 1, uncertain: 2, future: 1, cut: 1 });
  assert.deepEqual(file.firstLines, { uncertain: 4, blank: 6, placeholder: 7, future: 8, cut: 9 });
  assert.equal(file.rowsRead, 9);
});

test("a monthly breakdown's empty last row is the month to come, not a value", () => {
  const file = read(
    crlf(MONTHLY_HEADER, "202404,55.1,12.3,29.4,3.2", "202405,57.77,11.11,28.02,3.1", "202406,,,,"),
    MONTHLY,
    Date.parse("2024-06-10T04:09:00Z"),
  );
  assert.deepEqual(
    file.rows.map((r) => r.period),
    ["2024-04-01", "2024-05-01"],
  );
  assert.equal(file.rows[1]!.values.uclf_pct, 28.02);
  assert.deepEqual(file.skipped, { blank: 1, placeholder: 0, uncertain: 0, future: 0, cut: 0 });
  // The older ";" form with decimal commas reads the same.
  const semicolons = read(
    "YEAR_MONTH;EAF;PCLF;UCLF;OCLF\n202404;55,1;12,3;29,4;3,2\n",
    MONTHLY,
    Date.parse("2024-06-10T04:09:00Z"),
  );
  assert.deepEqual(semicolons.rows[0]!.values, file.rows[0]!.values);
});

test("a file that cannot be read with certainty is refused whole, naming its line", () => {
  const row = "2026-03-30,61.5,10.25,25.75,2.5,2026,2026-27";
  assert.match(
    refusal(() => read(WEEKLY_HEADER + "\r\n" + row + "\r\n2026-04-06,58,12,27,3,2026,2026-2", WEEKLY)),
    /line 3 .*no line break/,
  );
  assert.match(
    refusal(() => read(weekly(row, "2026-04-06,58,12,27,3,20"), WEEKLY)),
    /line 3 .*cut short \(6 of the header's 7 fields\)/,
  );
  assert.match(
    refusal(() => read(weekly(row, "2026-04-06,158,12,27,3,2026,2026-27"), WEEKLY)),
    /line 3 .*"Weekly EAF" is 158, outside its bounds \(0 to 100%\)/,
  );
  assert.match(
    refusal(() => read("<!DOCTYPE html><html></html>\n", WEEKLY)),
    /line 1 .*HTML page/,
  );
  assert.match(
    refusal(() => read(crlf(MONTHLY_HEADER, "202404,55.1,12.3,29.4,3.2"), WEEKLY)),
    /line 1 .*is not that of Weekly_Eskom_generation_capacity_breakdown\.csv/,
  );
  // Most rows in fractions, not percentages: they do not add up to 100%, and nothing is kept.
  const fractions = "0.615,0.1025,0.2575,0.025,2026,2026-27";
  assert.match(
    refusal(() => read(weekly(`2026-03-30,${fractions}`, `2026-04-06,${fractions}`, row), WEEKLY)),
    /line 2 .*2 of its 3 rows with values cannot be read with certainty \(EAF \+ PCLF \+ UCLF \+ OCLF must be 100%\)/,
  );
  // The same week twice with different values: neither is certain.
  assert.match(
    refusal(() => read(weekly(row, "2026-03-30,60,11,26,3,2026,2026-27"), WEEKLY)),
    /2 of its 2 rows .*a period is given twice with different values/,
  );
});

test("revisions keep every download's changes; as_of reads them as they stood, and a dropped week stays", (t) => {
  const dir = tempDir(t);
  const kept = new PeriodRevisions(dir, WEEKLY);
  const add = (file: PeriodFile, at: number) => kept.add(file, { receivedAt: at, sha256: "a".repeat(64) });
  const first = Date.parse("2026-04-08T04:09:00Z");
  const second = Date.parse("2026-04-15T04:09:00Z");
  const third = Date.parse("2026-04-16T04:09:00+00:00");
  const a = read(
    weekly("2026-03-30,61.5,10.25,25.75,2.5,2026,2026-27", "2026-04-06,58,12,27,3,2026,2026-27"),
    WEEKLY,
    first,
  );
  assert.deepEqual(add(a, first), { added: 2, revised: 0, newest: "2026-04-06", sampleRemoved: 0 });
  // A week later: 04-06 restated, 04-13 new; 03-30 no longer listed.
  const b = read(
    weekly("2026-04-06,59,11,27,3,2026,2026-27", "2026-04-13,60,10,27,3,2026,2026-27"),
    WEEKLY,
    second,
  );
  assert.deepEqual(add(b, second), { added: 1, revised: 1, newest: "2026-04-13", sampleRemoved: 0 });
  // The same table again adds nothing and writes nothing.
  const version = kept.version;
  assert.deepEqual(add(b, third), { added: 0, revised: 0, newest: "2026-04-13", sampleRemoved: 0 });
  assert.equal(kept.version, version);
  const now = kept.asOf(third).map((p) => [p.period, p.values.eaf_pct]);
  assert.deepEqual(now, [
    ["2026-03-30", 61.5],
    ["2026-04-06", 59],
    ["2026-04-13", 60],
  ]);
  const then = kept.asOf(second - 1).map((p) => [p.period, p.values.eaf_pct]);
  assert.deepEqual(then, [
    ["2026-03-30", 61.5],
    ["2026-04-06", 58],
  ]);
  assert.throws(() => add(a, first), /not newer than the newest kept/);
  // Sample figures are never kept beside Eskom's.
  assert.throws(
    () => kept.add(a, { receivedAt: third + 1, sha256: "b".repeat(64), sample: true }),
    /Generated sample data is not added beside Eskom's/,
  );
});

test("the weekly and monthly endpoints: range rules, tz, columns, formats, as_of and validators", async (t) => {
  const dir = tempDir(t);
  const receivedAt = Date.parse("2026-04-15T04:09:00Z");
  const keep = (name: string, text: string, at: number) =>
    new PeriodRevisions(dir, name).add(read(text, name, at), { receivedAt: at, sha256: "c".repeat(64) });
  keep(
    WEEKLY,
    weekly("2026-03-30,61.5,10.25,25.75,2.5,2026,2026-27", "2026-04-06,58,12,27,3,2026,2026-27"),
    receivedAt,
  );
  keep(
    OUTAGES,
    crlf(
      "Week_min_DateKey,Min of UCLF+OCLF,Average of UCLF+OCLF,Max of UCLF+OCLF",
      "2026-04-06,8031.0029999999997,9520.2454345238039,10733.099",
    ),
    receivedAt,
  );
  keep(MONTHLY, crlf(MONTHLY_HEADER, "202603,60.5,10.5,26,3", "202604,,,,"), receivedAt);
  keep(WEEKLY, weekly("2026-04-06,59,11,27,3,2026,2026-27"), receivedAt + 86_400_000);
  const server = await startServer(t, dir);
  const path = "/api/v1/grid/availability/weekly";
  const body = async (query: string) => {
    const res = await server.get(`${path}?${query}`);
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as { meta: Record<string, unknown>; data: Record<string, unknown>[] };
  };
  const all = await body("start=2026-03-30&end=2026-04-13");
  assert.deepEqual(all.data, [
    {
      date: "2026-03-30",
      eaf_pct: 61.5,
      pclf_pct: 10.25,
      uclf_pct: 25.75,
      oclf_pct: 2.5,
      financial_year: "2026-27",
      min_uclf_oclf_mw: null,
      avg_uclf_oclf_mw: null,
      max_uclf_oclf_mw: null,
    },
    {
      date: "2026-04-06",
      eaf_pct: 59,
      pclf_pct: 11,
      uclf_pct: 27,
      oclf_pct: 3,
      financial_year: "2026-27",
      min_uclf_oclf_mw: 8031.003,
      avg_uclf_oclf_mw: 9520.245434523804,
      max_uclf_oclf_mw: 10733.099,
    },
  ]);
  assert.equal(all.meta.interval, "1w");
  assert.equal(all.meta.timezone, "UTC");
  assert.equal(all.meta.derivation_method, "as_published");
  assert.equal(all.meta.last_available, "2026-04-06");
  assert.equal(all.meta.last_received, "2026-04-16T04:09:00+00:00");
  // A week is in the range when 00:00 of its Monday, in tz, is.
  assert.deepEqual(
    (await body("start=2026-04-06&end=2026-04-07")).data.map((r) => r.date),
    ["2026-04-06"],
  );
  const sast = await body("start=2026-04-06&end=2026-04-07&tz=Africa/Johannesburg&columns=eaf_pct");
  assert.deepEqual(sast.data, [{ date: "2026-04-06", eaf_pct: 59 }]);
  assert.equal(sast.meta.start, "2026-04-06T00:00:00+02:00");
  // as_of: the restatement was not known yet.
  const before = await body("start=2026-04-06&end=2026-04-07&as_of=2026-04-15T12:00:00Z");
  assert.equal(before.data[0]!.eaf_pct, 58);
  assert.equal(before.meta.as_of, "2026-04-15T12:00:00+00:00");
  const refused = async (query: string, status: number, error: string, detail: RegExp) => {
    const res = await server.get(`${path}?${query}`);
    assert.equal(res.status, status, query);
    const json = (await res.json()) as { error: string; detail: string };
    assert.equal(json.error, error, query);
    assert.match(json.detail, detail, query);
  };
  await refused(
    "start=2026-04-06&end=2026-04-07&interval=1d",
    400,
    "unsupported_interval",
    /Supported intervals of grid\.availability_weekly: 1w\./,
  );
  // A setting of ranges it does not take is named, with why.
  await refused(
    "start=2026-04-06&end=2026-04-07&agg=max",
    400,
    "invalid_parameter",
    /grid\.availability_weekly does not take 'agg': its values are Eskom's own/,
  );
  await refused(
    "start=2026-04-06&end=2026-04-07&columns=eaf",
    400,
    "invalid_parameter",
    /Unknown column 'eaf'.*eaf_pct/,
  );
  await refused(
    "start=2026-04-06&end=2026-04-07&as_of=2026-04-01T00:00:00Z",
    400,
    "invalid_parameter",
    /before the first download.*2026-04-15T04:09:00/,
  );
  await refused("start=2026-04-06", 400, "missing_params", /end/);
  // CSV, then Parquet read by DuckDB (a reader this project does not write).
  const csv = await server.get(`${path}?start=2026-03-30&end=2026-04-13&format=csv`);
  assert.match(
    csv.headers.get("content-disposition")!,
    /grid\.availability_weekly_1w_20260330T000000Z_20260413T000000Z\.csv/,
  );
  assert.equal(
    await csv.text(),
    "date,eaf_pct,pclf_pct,uclf_pct,oclf_pct,financial_year,min_uclf_oclf_mw,avg_uclf_oclf_mw,max_uclf_oclf_mw\r\n" +
      "2026-03-30,61.5,10.25,25.75,2.5,2026-27,,,\r\n2026-04-06,59,11,27,3,2026-27,8031.003,9520.245434523804,10733.099\r\n",
  );
  const parquet = await server.get(`${path}?start=2026-03-30&end=2026-04-13&format=parquet`);
  const file = join(tempDir(t), "weekly.parquet");
  writeFileSync(file, Buffer.from(await parquet.arrayBuffer()));
  const db = await (await DuckDBInstance.create(":memory:")).connect();
  const rows = (
    await db.runAndReadAll(
      `SELECT strftime(date, '%Y-%m-%d') AS day, * EXCLUDE (date) FROM '${file}' ORDER BY date`,
    )
  ).getRowObjectsJson();
  assert.deepEqual(
    rows.map(({ day, ...values }) => ({ date: day, ...values })),
    all.data,
  );
  // The ETag answers a repeat with 304; a new download changes it.
  const first = await server.get(`${path}?start=2026-03-30&end=2026-04-13`);
  const etag = first.headers.get("etag")!;
  assert.equal(
    (await server.get(`${path}?start=2026-03-30&end=2026-04-13`, { headers: { "If-None-Match": etag } }))
      .status,
    304,
  );
  keep(WEEKLY, weekly("2026-04-13,60,10,27,3,2026,2026-27"), receivedAt + 2 * 86_400_000);
  const after = await server.get(`${path}?start=2026-03-30&end=2026-04-13`, {
    headers: { "If-None-Match": etag },
  });
  assert.equal(after.status, 200);
  // The monthly dataset: the empty row is no month.
  const monthly = await server.get("/api/v1/grid/availability/monthly?start=2026-01-01&end=2027-01-01");
  const months = (await monthly.json()) as { data: unknown[]; meta: Record<string, unknown> };
  assert.deepEqual(months.data, [
    { date: "2026-03-01", eaf_pct: 60.5, pclf_pct: 10.5, uclf_pct: 26, oclf_pct: 3 },
  ]);
  assert.equal(months.meta.interval, "1mo");
  // The catalog lists both, with their one interval and their fields.
  const catalog = (await (await server.get("/api/v1/datasets")).json()) as {
    datasets: {
      id: string;
      intervals: string[];
      parameters: string[];
      formats: string[];
      fields: Record<string, { name: string; unit?: string }[]>;
    }[];
  };
  const weeklyEntry = catalog.datasets.find((d) => d.id === "grid.availability_weekly")!;
  assert.deepEqual(weeklyEntry.intervals, ["1w"]);
  assert.deepEqual(weeklyEntry.parameters, ["start", "end", "interval", "tz", "columns", "format", "as_of"]);
  assert.deepEqual(weeklyEntry.formats, ["json", "csv", "parquet"]);
  assert.deepEqual(Object.keys(weeklyEntry.fields), ["1w"]);
  assert.equal(weeklyEntry.fields["1w"]!.find((f) => f.name === "eaf_pct")!.unit, "%");
  // A damaged revisions file is a 503, never a partial answer.
  writeFileSync(join(dir, PERIODS_DIR, "Monthly_Eskom_generation_capacity_breakdown.json"), "{ torn");
  const damaged = await server.get("/api/v1/grid/availability/monthly?start=2026-01-01&end=2027-01-01");
  assert.equal(damaged.status, 503);
  assert.equal(damaged.headers.get("retry-after"), "600");
});

test(
  "the real 2026 weekly outages, pulled through the loopback portal: every value served is the file's",
  { skip: SKIP_REAL },
  async (t) => {
    const text = readFileSync(REAL_OUTAGES, "utf8");
    const stand = await startPortal(t);
    stand.publish(OUTAGES, text, { folder: "2026/06" });
    const dir = tempDir(t);
    const result = await pullPortal({
      dir,
      root: stand.root,
      files: [portalFile(OUTAGES)!],
      policy: FAST,
      now: () => JUNE_19,
    });
    assert.equal(result.ok, true, JSON.stringify(result.files));
    assert.deepEqual(
      { ...result.files[0], link: undefined },
      {
        file: OUTAGES,
        result: "ingested",
        link: undefined,
        periodsAdded: 12,
        periodsRevised: 0,
        rowsRead: 12,
        skipped: { blank: 0, placeholder: 0, uncertain: 0, future: 0, cut: 0 },
        skippedFirst: {},
      },
    );
    const server = await startServer(t, dir, { now: () => JUNE_19 + 3_600_000 });
    const res = await server.get(
      "/api/v1/grid/availability/weekly?start=2026-03-30&end=2026-06-22&columns=min_uclf_oclf_mw,avg_uclf_oclf_mw,max_uclf_oclf_mw",
    );
    const { data } = (await res.json()) as { data: Record<string, unknown>[] };
    const lines = text.trimEnd().split("\r\n").slice(1);
    assert.equal(data.length, lines.length);
    lines.forEach((line, i) => {
      const [week, min, avg, max] = line.split(",");
      assert.deepEqual(data[i], {
        date: week,
        min_uclf_oclf_mw: Number(min),
        avg_uclf_oclf_mw: Number(avg),
        max_uclf_oclf_mw: Number(max),
      });
    });
    // The same download again is unchanged; the pull's state knows the file's weekly cadence.
    stand.publish(OUTAGES, text, { folder: "2026/06", name: "Weekly_unplanned_outages-1.csv" });
    const again = await pullPortal({
      dir,
      root: stand.root,
      files: [portalFile(OUTAGES)!],
      policy: FAST,
      now: () => JUNE_19 + 86_400_000,
    });
    assert.equal(again.files[0]!.result, "unchanged");
    const health = (await (await server.get("/healthz")).json()) as {
      sources: { file: string; state: string; cadence_hours: number; newest_hour: string }[];
    };
    const source = health.sources.find((s) => s.file === OUTAGES)!;
    assert.equal(source.cadence_hours, 168);
    assert.equal(source.state, "current");
    assert.equal(source.newest_hour, "2026-06-14T22:00:00.000Z");
  },
);

test("the sample's weekly and monthly figures agree with its hourly availability over the same SAST periods", async (t) => {
  const dir = tempDir(t);
  const lastHour = Date.parse("2026-05-31T21:00:00Z"); // 23:00 SAST on 31 May
  ingestTexts(dir, { "sample.csv": generateSampleExport({ lastHour, days: 120 }) });
  const now = lastHour + 3 * 3_600_000;
  assert.ok(seedSamplePeriods(dir, { lastHour, days: 120 }, now) > 0);
  assert.equal(seedSamplePeriods(dir, { lastHour, days: 120 }, now + 1), 0, "seeded once");
  const server = await startServer(t, dir, { now: () => now });
  const get = async (path: string) => {
    const res = await server.get(path);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("data-source"), "sample");
    return (await res.json()) as { meta: Record<string, unknown>; data: Record<string, number>[] };
  };
  const range = "start=2026-03-01&end=2026-06-01&tz=Africa/Johannesburg";
  const months = await get(`/api/v1/grid/availability/monthly?${range}`);
  assert.equal(months.meta.sample, true);
  const hourly = await get(`/api/v1/grid/availability?${range}&interval=1mo`);
  assert.equal(months.data.length, 3);
  months.data.forEach((month, i) => {
    assert.equal(month.date, hourly.data[i]!.date as unknown as number);
    assert.ok(
      Math.abs(month.eaf_pct! - hourly.data[i]!.energy_availability_factor_pct!) < 0.02,
      `${month.date}`,
    );
  });
  const weeks = await get(`/api/v1/grid/availability/weekly?${range}`);
  const hourlyWeeks = await get(`/api/v1/grid/availability?${range}&interval=1w`);
  assert.deepEqual(
    weeks.data.map((w) => w.date),
    hourlyWeeks.data.map((w) => w.date),
  );
  weeks.data.forEach((week, i) => {
    const h = hourlyWeeks.data[i]!;
    assert.ok(Math.abs(week.eaf_pct! - h.energy_availability_factor_pct!) < 0.02, `${week.date}`);
    assert.ok(
      Math.abs(week.avg_uclf_oclf_mw! - (h.avg_unplanned_outages_mw! + h.avg_other_outages_mw!)) < 0.01,
    );
  });
});

test("a weekly or monthly file given to the hourly ingest is refused with what it is", (t) => {
  const dir = tempDir(t);
  assert.throws(
    () => ingestTexts(dir, { [MONTHLY]: crlf(MONTHLY_HEADER, "202404,55.1,12.3,29.4,3.2") }),
    /line 1 .*Monthly_Eskom_generation_capacity_breakdown\.csv, a table of months, not of hours: the pull keeps it/,
  );
});
