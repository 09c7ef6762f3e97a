/**
 * `GET /api/v1/features/load-shedding-outlook` (docs/api.md: "Load-shedding outlook"): issued now
 * or as of an instant, its hours from the one after the newest actual hour to 168 hours after it
 * is issued, per hour or per SAST day, with what it read in `meta`; the same instant gives the
 * same bytes, a later ingest does not change an earlier issue, and a bad query is a 400 that says why.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { exportCsv, startServer, tempDir, writeFile } from "./helpers.ts";
import { COLUMNS, history } from "./outlook-store.ts";

const PATH = "/api/v1/features/load-shedding-outlook";
const HOUR = 3_600_000;

interface Body {
  meta: Record<string, unknown> & { inputs: Record<string, unknown> };
  data: Record<string, unknown>[];
}

async function stands(t: import("node:test").TestContext) {
  const dir = tempDir(t);
  const src = tempDir(t);
  const end = Date.now() - 2 * 24 * HOUR;
  ingestFiles([writeFile(src, "history.csv", exportCsv(COLUMNS, history(end)))], { dir });
  const server = await startServer(t, dir);
  return { dir, src, server };
}

test("issued as of an instant: hours from the one after the newest actual hour to 168 hours on, the same bytes each time", async (t) => {
  const { server } = await stands(t);
  const asOf = new Date().toISOString();
  const res = await server.get(`${PATH}?as_of=${asOf}`);
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as Body;
  const newest = Date.parse(body.meta.newest_actual as string);
  assert.equal(body.meta.dataset, "features.load_shedding_outlook");
  assert.equal(body.meta.timezone, "Africa/Johannesburg");
  assert.equal(body.meta.version, "v2");
  assert.equal(body.meta.issued_at, asOf.replace("Z", "+00:00").replace(/\.(\d{3})\+/, ".$1+"));
  assert.equal(Date.parse(body.data[0]!.ts as string), newest + HOUR);
  const last = Math.floor((Date.parse(asOf) + 168 * HOUR) / HOUR) * HOUR;
  assert.equal(Date.parse(body.data.at(-1)!.ts as string), last);
  assert.match(body.data[0]!.ts as string, /\+02:00$/);
  for (const [i, record] of body.data.entries()) {
    assert.deepEqual(Object.keys(record), ["ts", "probability", "lead_h", "band"]);
    assert.equal(record.lead_h, i + 1);
    const p = record.probability as number;
    assert.ok(p >= 0 && p <= 1);
    assert.equal(record.band, p >= 0.8 ? "critical" : p >= 0.6 ? "high" : p >= 0.3 ? "moderate" : "low");
  }
  const { formula_weights: weights, ...inputs } = body.meta.inputs;
  assert.deepEqual(inputs, {
    readings_as_of: body.meta.issued_at,
    week_ahead_forecast_hours: body.data.length,
    forecast_issue: null,
    forecast_issue_hours: 0,
  });
  // The formula's weight per bucket of lead, from its record of the 28 days before.
  assert.deepEqual(Object.keys(weights as object), ["1-24", "25-72", "73-168", "over 168"]);
  for (const w of Object.values(weights as object)) assert.ok(w >= 0 && w <= 1, `${w}`);
  // Five evenings of load reduction: tomorrow evening is likelier than its small hours.
  const at = (h: string) => body.data.find((r) => (r.ts as string).endsWith(`T${h}:00:00+02:00`))!;
  assert.ok((at("19").probability as number) > 5 * (at("03").probability as number));
  const again = await server.get(`${PATH}?as_of=${asOf}`);
  assert.equal(again.headers.get("etag"), res.headers.get("etag"));
  assert.equal(await again.text(), JSON.stringify(body));
});

test("per day: the chance of any load reduction and the hours to expect, SAST days unless tz says UTC", async (t) => {
  const { server } = await stands(t);
  const asOf = new Date().toISOString();
  const hours = ((await (await server.get(`${PATH}?as_of=${asOf}`)).json()) as Body).data;
  const days = ((await (await server.get(`${PATH}?as_of=${asOf}&interval=1d`)).json()) as Body).data;
  assert.deepEqual(Object.keys(days[0]!), ["date", "probability", "expected_hours", "band", "hours"]);
  assert.equal(
    days.reduce((s, d) => s + (d.hours as number), 0),
    hours.length,
  );
  for (const day of days) {
    const own = hours.filter((h) => (h.ts as string).startsWith(day.date as string));
    assert.equal(own.length, day.hours);
    assert.equal(day.probability, Math.max(...own.map((h) => h.probability as number)));
  }
  const utc = (await (await server.get(`${PATH}?as_of=${asOf}&tz=UTC`)).json()) as Body;
  assert.match(utc.data[0]!.ts as string, /\+00:00$/);
  const csv = await (await server.get(`${PATH}?as_of=${asOf}&interval=1d&format=csv`)).text();
  assert.equal(csv.split("\r\n")[0], "date,probability,expected_hours,band,hours");
});

test("a later ingest changes the outlook issued now, never one issued before it", async (t) => {
  const { server, dir, src } = await stands(t);
  const before = new Date().toISOString();
  const earlier = await (await server.get(`${PATH}?as_of=${before}`)).text();
  const now = (await (await server.get(PATH)).json()) as Body;
  // Load reduction six evenings before the newest hour, as a later download would revise it.
  const newest = Date.parse(now.meta.newest_actual as string);
  const day = new Date(newest + 2 * HOUR - 6 * 24 * HOUR).toISOString().slice(0, 10);
  const rows = [17, 18, 19, 20].map((h) => [`${day} ${String(h - 12).padStart(2, "0")}:00:00 PM`, "3000"]);
  ingestFiles([writeFile(src, "later.csv", exportCsv(["Manual Load_Reduction(MLR)"], rows))], { dir });
  assert.equal(await (await server.get(`${PATH}?as_of=${before}`)).text(), earlier);
  const after = (await (await server.get(PATH)).json()) as Body;
  assert.notDeepEqual(after.data, now.data, "issued now, it reads the new evening");
});

test("a bad query says why: a range, a setting it does not take, an as_of in the future", async (t) => {
  const { server } = await stands(t);
  const cases: [string, RegExp][] = [
    ["?start=2025-06-01&end=2025-06-02", /does not take 'start' or 'end': its hours are those of its issue/],
    [
      "?interval=1w",
      /Unsupported interval '1w'. Supported intervals of features.load_shedding_outlook: 1h, 1d/,
    ],
    ["?agg=max", /does not take 'agg'/],
    ["?format=parquet", /does not take 'format=parquet'/],
    ["?as_of=2999-01-01T00:00:00Z", /'as_of' is in the future/],
    ["?hours=3", /Unknown query parameter/],
    ["?tz=Europe/London", /Query parameter 'tz' must be UTC or Africa\/Johannesburg, not 'Europe\/London'/],
    [
      "?as_of=yesterday",
      /Query parameter 'as_of' must be an ISO-8601 date-time with an offset .* not 'yesterday'/,
    ],
  ];
  for (const [query, why] of cases) {
    const res = await server.get(`${PATH}${query}`);
    assert.equal(res.status, 400, query);
    assert.match(((await res.json()) as { detail: string }).detail, why, query);
  }
});

test("a store whose newest load-reduction value is more than 60 days old has no outlook: no records, and meta says so", async (t) => {
  const dir = tempDir(t);
  const old = Date.now() - 100 * 24 * HOUR;
  ingestFiles([writeFile(tempDir(t), "old.csv", exportCsv(COLUMNS, history(old).slice(0, 60 * 24)))], {
    dir,
  });
  const server = await startServer(t, dir);
  for (const interval of ["1h", "1d"]) {
    const res = await server.get(`${PATH}?interval=${interval}`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as Body;
    assert.deepEqual(body.data, []);
    assert.equal(body.meta.newest_actual, null);
    assert.equal(body.meta.start, body.meta.end);
  }
});
