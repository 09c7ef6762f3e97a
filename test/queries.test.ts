/**
 * The queries analysts expect (issue 40): South African days and longer periods, aggregates,
 * columns, the newest hours, and whole histories as CSV and Parquet. Periods are checked against a
 * recomputation written here from the raw export text alone: its SAST stamps give each hour's
 * South African date directly, with no use of the service's time code.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, startServer, tempDir } from "./helpers.ts";

const DAYS = 400;
const FIRST_DAY = "2024-01-01";
const EXPORT = generateSampleExport({ firstDay: FIRST_DAY, days: DAYS });

/** The export's rows as the raw text has them: SAST date (YYYY-MM-DD), hour and the Wind column. */
function rawRows(): { date: string; hour: number; wind: number }[] {
  const [header, ...lines] = EXPORT.trim().split("\n");
  const wind = header!.split(",").indexOf("Wind");
  return lines.map((line) => {
    const cells = line.split(",");
    const [date, time, half] = cells[0]!.split(" ");
    const h = Number(time!.slice(0, 2)) % 12;
    return { date: date!, hour: half === "PM" ? h + 12 : h, wind: Number(cells[wind]) };
  });
}

// The key of the period a SAST date is in, from the calendar alone.
function periodKey(date: string, period: string): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  if (period === "1d") return date;
  if (period === "1mo") return `${date.slice(0, 7)}-01`;
  if (period === "1y") return `${y}-01-01`;
  if (period === "fy") return `${m >= 4 ? y : y - 1}-04-01`;
  const day = new Date(Date.UTC(y, m - 1, d));
  day.setUTCDate(d - ((day.getUTCDay() + 6) % 7));
  return day.toISOString().slice(0, 10);
}

function expected(period: string) {
  const groups = new Map<string, number[]>();
  for (const row of rawRows()) {
    const key = periodKey(row.date, period);
    groups.set(key, [...(groups.get(key) ?? []), row.wind]);
  }
  return [...groups].map(([date, values]) => ({
    date,
    hours: values.length,
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
    sum: values.reduce((a, b) => a + b, 0),
  }));
}

async function setUp(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": EXPORT });
  return startServer(t, dir);
}

const close = (a: number, b: number) => Math.abs(a - b) <= 0.0011 * Math.max(1, Math.abs(b) / 1e6);

test("SAST days, ISO weeks, months, years and financial years equal a recomputation from the raw export, for mean, min, max and sum", async (t) => {
  const server = await setUp(t);
  // The whole export, as SAST dates: bare dates mean 00:00 SAST with tz.
  const range = "start=2024-01-01&end=2025-02-04&tz=Africa/Johannesburg";
  for (const period of ["1d", "1w", "1mo", "1y", "fy"]) {
    const want = expected(period).filter((p) => p.date >= "2024-01-01");
    // A period is served whole when it begins in the range: drop those the export holds only in part.
    const whole = want.filter((p) => period === "1d" || p.date >= FIRST_DAY);
    for (const agg of ["mean", "min", "max", "sum"] as const) {
      const res = await server.get(`/api/v1/generation/mix?${range}&interval=${period}&agg=${agg}`);
      assert.equal(res.status, 200, `${period} ${agg}`);
      const body = (await res.json()) as {
        meta: Record<string, unknown>;
        data: Record<string, number | string>[];
      };
      assert.equal(body.meta.interval, period);
      assert.equal(body.meta.timezone, "Africa/Johannesburg");
      const field = agg === "mean" ? "avg_wind_mw" : `${agg}_wind_mw`;
      const got = body.data.map((r) => ({ date: r.date, hours: r.hours, value: r[field] as number }));
      assert.deepEqual(
        got.map((r) => r.date),
        whole.map((p) => p.date),
        `${period} ${agg}: periods`,
      );
      got.forEach((r, i) => {
        assert.equal(r.hours, whole[i]!.hours, `${period} ${r.date} hours`);
        assert.ok(
          close(r.value, whole[i]![agg]),
          `${period} ${agg} ${r.date}: ${r.value} against ${whole[i]![agg]}`,
        );
      });
    }
  }
});

test("tz: the same hours, stamped +02:00; a bare date is 00:00 SAST; UTC days differ from SAST days", async (t) => {
  const server = await setUp(t);
  const utc = (await (
    await server.get("/api/v1/grid/system-state?start=2024-03-01T00:00Z&end=2024-03-01T06:00Z")
  ).json()) as {
    data: Record<string, unknown>[];
  };
  const sast = (await (
    await server.get(
      "/api/v1/grid/system-state?start=2024-03-01T02:00%2B02:00&end=2024-03-01T08:00%2B02:00&tz=Africa/Johannesburg",
    )
  ).json()) as { meta: Record<string, unknown>; data: Record<string, unknown>[] };
  assert.equal(sast.meta.start, "2024-03-01T02:00:00+02:00");
  assert.equal(sast.data[0]!.ts, "2024-03-01T02:00:00+02:00");
  assert.deepEqual(
    sast.data.map(({ ts: _ts, ...values }) => values),
    utc.data.map(({ ts: _ts, ...values }) => values),
  );
  const bare = (await (
    await server.get(
      "/api/v1/grid/system-state?start=2024-03-01&end=2024-03-01T01:00%2B02:00&tz=Africa/Johannesburg",
    )
  ).json()) as { data: Record<string, unknown>[] };
  assert.deepEqual(
    bare.data.map((r) => r.ts),
    ["2024-03-01T00:00:00+02:00"],
  );
  // A SAST day begins two hours before the UTC day: the first day's means differ.
  const day = async (tz: string) =>
    (
      (await (
        await server.get(`/api/v1/generation/mix?start=2024-03-01&end=2024-03-02&interval=1d&tz=${tz}`)
      ).json()) as {
        data: Record<string, number>[];
      }
    ).data[0]!.avg_wind_mw;
  assert.notEqual(await day("UTC"), await day("Africa/Johannesburg"));
});

test("an error quotes a long value of the request by its start and its length, not whole", async (t) => {
  const server = await setUp(t);
  const long = "x".repeat(10_000);
  const said = `${"x".repeat(60)}… (10000 characters)`;
  for (const [query, detail] of [
    [`start=2024-03-01&end=2024-03-02&columns=${long}`, `Unknown column '${said}' in 'columns'.`],
    [`start=${long}&end=2024-03-02`, `'start' is not an ISO-8601 date-time: '${said}'.`],
    [`start=2024-03-01&end=2024-03-02&${long}=1`, `Unknown query parameter: '${said}'.`],
    [`start=2024-03-01&end=2024-03-02&interval=${long}`, `Unsupported interval '${said}'.`],
    [`start=2024-03-01&end=2024-03-02&tz=${long}`, `not '${said}'.`],
    // 100 characters are still quoted whole.
    [`start=2024-03-01&end=2024-03-02&columns=${"y".repeat(100)}`, `Unknown column '${"y".repeat(100)}' in`],
  ]) {
    const res = await server.get(`/api/v1/grid/system-state?${query}`);
    assert.equal(res.status, 400);
    const body = (await res.json()) as { detail: string };
    assert.ok(body.detail.includes(detail!), body.detail);
    assert.ok(body.detail.length < 1000, `${body.detail.length} characters`);
  }
});

test("columns narrows the records, stamp first; unknown names and missing aggregates are 400s that list what is valid", async (t) => {
  const server = await setUp(t);
  const res = await server.get("/api/v1/grid/system-state?start=2024-03-01&end=2024-03-02&columns=wind_mw");
  assert.equal(res.status, 400);
  const unknown = (await res.json()) as { error: string; detail: string };
  assert.equal(unknown.error, "invalid_parameter");
  assert.match(
    unknown.detail,
    /^Unknown column 'wind_mw' in 'columns'\. Valid columns here: residual_demand_mw, /,
  );
  const ok = (await (
    await server.get(
      "/api/v1/grid/system-state?start=2024-03-01&end=2024-03-01T03:00Z&columns=total_re_mw,residual_demand_mw",
    )
  ).json()) as { data: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(ok.data[0]!), ["ts", "total_re_mw", "residual_demand_mw"]);
  const csv = await (
    await server.get(
      "/api/v1/grid/system-state?start=2024-03-01&end=2024-03-01T03:00Z&columns=total_re_mw&format=csv",
    )
  ).text();
  assert.equal(csv.split("\r\n")[0], "ts,total_re_mw");
  const share = (await (
    await server.get(
      "/api/v1/grid/system-state?start=2024-03-01&end=2024-04-01&interval=1mo&agg=sum&columns=sum_renewable_share_pct",
    )
  ).json()) as { detail: string };
  assert.match(share.detail, /^Field 'renewable_share_pct' has no sum: its aggregates are mean, min, max\./);
  const hourlyAgg = await server.get("/api/v1/grid/system-state?start=2024-03-01&end=2024-03-02&agg=max");
  assert.equal(
    (await server.get("/api/v1/grid/system-state?start=2024-03-01&end=2024-03-02&agg=mean")).status,
    200,
  );
  assert.equal(hourlyAgg.status, 400);
  const badTz = (await (
    await server.get("/api/v1/grid/system-state?start=2024-03-01&end=2024-03-02&tz=SAST")
  ).json()) as {
    detail: string;
  };
  assert.equal(badTz.detail, "Query parameter 'tz' must be UTC or Africa/Johannesburg, not 'SAST'.");
});

test("latest: the newest hours without knowing when, as the range ending after them would answer", async (t) => {
  const server = await setUp(t);
  const res = await server.get("/api/v1/grid/system-state/latest?hours=24");
  assert.equal(res.status, 200);
  assert.ok(res.headers.get("etag"));
  assert.match(res.headers.get("cache-control") ?? "", /max-age=/);
  const latest = (await res.json()) as { meta: Record<string, string>; data: Record<string, unknown>[] };
  assert.equal(latest.data.length, 24);
  assert.equal(latest.data.at(-1)!.ts, latest.meta.last_available);
  const range = (await (
    await server.get(
      `/api/v1/grid/system-state?start=${encodeURIComponent(latest.meta.start!)}&end=${encodeURIComponent(latest.meta.end!)}`,
    )
  ).json()) as { data: unknown[] };
  assert.deepEqual(latest.data, range.data);
  assert.equal((await server.get("/api/v1/grid/system-state/latest")).status, 200);
  const bad = await server.get("/api/v1/grid/system-state/latest?hours=0");
  assert.equal(bad.status, 400);
  // Above the bound (366 days of hours), or not a whole number: the same 400, naming the range.
  for (const hours of ["8785", "1.5", "-3", "12h"]) {
    const res = await server.get(`/api/v1/grid/system-state/latest?hours=${hours}`);
    assert.equal(res.status, 400, hours);
    assert.match(((await res.json()) as { detail: string }).detail, /from 1 to 8784/, hours);
  }
  assert.equal((await server.get("/api/v1/grid/system-state/latest?start=2024-01-01")).status, 400);
});

test("a 400-day hourly range streams as Parquet and CSV; DuckDB reads the Parquet with its types, and its values are the JSON answers'", async (t) => {
  // A long stream waits for the client many times: each wait leaves no listener behind.
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  t.after(() => process.off("warning", onWarning));
  const server = await setUp(t);
  const range = "start=2024-01-01T00:00Z&end=2025-02-01T00:00Z";
  const json = [
    ...(
      (await (
        await server.get(`/api/v1/generation/mix?start=2024-01-01T00:00Z&end=2024-07-01T00:00Z`)
      ).json()) as { data: Record<string, unknown>[] }
    ).data,
    ...(
      (await (
        await server.get(`/api/v1/generation/mix?start=2024-07-01T00:00Z&end=2025-02-01T00:00Z`)
      ).json()) as { data: Record<string, unknown>[] }
    ).data,
  ];
  assert.equal((await server.get(`/api/v1/generation/mix?${range}`)).status, 400, "JSON keeps its 366 days");
  const res = await server.get(`/api/v1/generation/mix?${range}&format=parquet`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/vnd.apache.parquet");
  assert.equal(res.headers.get("content-length"), null, "streamed");
  assert.equal(res.headers.get("data-source"), "sample");
  const file = join(tempDir(t), "mix.parquet");
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));

  const db = await (await DuckDBInstance.create(":memory:")).connect();
  const types = (await db.runAndReadAll(`DESCRIBE SELECT * FROM '${file}'`)).getRowObjectsJson();
  assert.equal(types[0]!.column_type, "TIMESTAMP WITH TIME ZONE");
  assert.ok(types.slice(1).every((c) => c.column_type === "DOUBLE"));
  assert.deepEqual(
    types.map((c) => c.column_name),
    Object.keys(json[0]!),
  );
  const rows = (
    await db.runAndReadAll(`SELECT epoch_ms(ts) AS ms, * EXCLUDE (ts) FROM '${file}' ORDER BY ts`)
  ).getRowObjectsJson();
  assert.equal(rows.length, json.length);
  rows.forEach((row, i) => {
    const { ms, ...values } = row;
    const { ts, ...want } = json[i]!;
    assert.equal(Number(ms), Date.parse(ts as string));
    assert.deepEqual(values, want, String(ts));
  });
  const meta = (
    await db.runAndReadAll(
      `SELECT decode(value) AS v FROM parquet_kv_metadata('${file}') WHERE decode(key) = 'meta'`,
    )
  ).getRowObjectsJson();
  const parsed = JSON.parse(meta[0]!.v as string) as Record<string, unknown>;
  assert.equal(parsed.dataset, "generation.mix");
  assert.equal(parsed.sample, true);

  const csv = await (await server.get(`/api/v1/generation/mix?${range}&format=csv`)).text();
  assert.equal(csv.trimEnd().split("\r\n").length, json.length + 1);
  const daily = await server.get(`/api/v1/generation/mix?${range}&interval=1mo&format=parquet`);
  const monthly = join(tempDir(t), "monthly.parquet");
  writeFileSync(monthly, Buffer.from(await daily.arrayBuffer()));
  const dateType = (
    await db.runAndReadAll(`DESCRIBE SELECT date, hours FROM '${monthly}'`)
  ).getRowObjectsJson();
  assert.deepEqual(
    dateType.map((c) => c.column_type),
    ["DATE", "INTEGER"],
  );
  assert.deepEqual(warnings, [], "no listener piles up on a response");
});
