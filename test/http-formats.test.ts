import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { chooseEncoding, chooseFormat } from "../src/http/negotiation.ts";
import { exportCsv, ingestTexts, startServer, tempDir } from "./helpers.ts";

async function sampleServer(t: Parameters<typeof tempDir>[0], now?: () => number) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-05-01", days: 61 }) });
  return { dir, server: await startServer(t, dir, { now }) };
}

function parseCsv(text: string): Record<string, string>[] {
  const [header, ...rows] = text.trimEnd().split("\r\n");
  const names = header!.split(",");
  return rows.map((row) => Object.fromEntries(row.split(",").map((cell, i) => [names[i]!, cell])));
}

const fromCell = (cell: string) =>
  cell === "" ? null : /^-?[\d.]+(e-?\d+)?$/.test(cell) ? Number(cell) : cell;

async function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on("error", reject);
      req.end();
    },
  );
}

test("CSV parsed back equals the JSON records, for every dataset and interval", async (t) => {
  const { server } = await sampleServer(t);
  for (const path of [
    "/api/v1/grid/system-state",
    "/api/v1/generation/mix",
    "/api/v1/features/grid-stress",
  ]) {
    for (const query of ["start=2025-06-01&end=2025-06-03", "start=2025-05-01&end=2025-07-01&interval=1d"]) {
      const json = await (await server.get(`${path}?${query}`)).json();
      const res = await server.get(`${path}?${query}&format=csv`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
      const rows = parseCsv(await res.text());
      assert.equal(rows.length, json.data.length);
      assert.ok(rows.length > 0);
      const first = Object.keys(rows[0]!)[0];
      assert.equal(first, query.includes("1d") ? "date" : "ts");
      rows.forEach((row, i) => {
        const record = json.data[i];
        assert.deepEqual(Object.keys(row), Object.keys(record));
        for (const [name, cell] of Object.entries(row))
          assert.equal(fromCell(cell), record[name], `${path} ${name}`);
      });
    }
  }
});

test("CSV has empty cells for nulls, components as columns, and a filename naming dataset and range", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "f.csv": exportCsv(["Residual Demand", "Residual Forecast"], [["2025-06-01 02:00:00 AM", "", "21000.5"]]),
  });
  const server = await startServer(t, dir);
  const res = await server.get("/api/v1/grid/system-state?start=2025-06-01&end=2025-06-02&format=csv");
  assert.equal(
    res.headers.get("content-disposition"),
    'attachment; filename="grid.system_state_1h_20250601T000000Z_20250602T000000Z.csv"',
  );
  assert.equal(
    await res.text(),
    "ts,residual_demand_mw,residual_forecast_mw,total_re_mw,imports_mw,exports_mw,net_import_mw,renewable_share_pct,ocgt_ramp_mw,forecast_error_mw\r\n" +
      "2025-06-01T00:00:00+00:00,,21000.5,,,,,,,\r\n",
  );
  const stress = await server.get(
    "/api/v1/features/grid-stress?start=2025-06-01&end=2025-06-02&format=csv&components=true",
  );
  assert.equal(
    (await stress.text()).split("\r\n")[0],
    "ts,value,band,version,components.diesel_day,components.diesel_week,components.supply_gap,components.fleet_decline,components.pumped_storage_low,components.interruptible_load,components.evening_peak",
    "the default version's components only",
  );
  const v1 = await server.get(
    "/api/v1/features/grid-stress?start=2025-06-01&end=2025-06-02&format=csv&components=true&version=v1",
  );
  assert.equal(
    (await v1.text()).split("\r\n")[0],
    "ts,value,band,version,components.residual_demand,components.ocgt_ramp,components.reserve_margin,components.renewable_shortfall,components.forecast_error",
  );
  const empty = await server.get("/api/v1/generation/mix?start=2030-01-01&end=2030-01-02&format=csv");
  assert.equal((await empty.text()).split("\r\n").length, 2, "a header row and nothing else");
});

test("Accept: text/csv selects CSV; format wins over Accept; errors stay JSON", async (t) => {
  const { server } = await sampleServer(t);
  const path = "/api/v1/generation/mix?start=2025-06-01&end=2025-06-02";
  const csv = await server.get(path, { headers: { Accept: "text/csv" } });
  assert.equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
  const json = await server.get(`${path}&format=json`, { headers: { Accept: "text/csv" } });
  assert.equal(json.headers.get("content-type"), "application/json");
  const error = await server.get("/api/v1/generation/mix?start=bad&end=2025-01-01&format=csv");
  assert.equal(error.status, 400);
  assert.equal(error.headers.get("content-type"), "application/json");
  const badFormat = await (await server.get(`${path}&format=xlsx`)).json();
  assert.deepEqual(badFormat, {
    error: "invalid_parameter",
    detail: "Query parameter 'format' must be 'json', 'csv' or 'parquet', not 'xlsx'.",
  });
});

test("format negotiation: JSON unless CSV is preferred", () => {
  assert.equal(chooseFormat(undefined, undefined), "json");
  assert.equal(chooseFormat(undefined, "*/*"), "json");
  assert.equal(chooseFormat(undefined, "text/csv"), "csv");
  assert.equal(chooseFormat(undefined, "text/csv, application/json;q=0.9"), "csv");
  assert.equal(chooseFormat(undefined, "application/json, text/csv;q=0.5"), "json");
  assert.equal(chooseFormat(undefined, "text/csv;q=0"), "json");
  assert.equal(chooseFormat(undefined, "text/html"), "json");
  assert.equal(chooseFormat("json", "text/csv"), "json");
});

test("encoding negotiation: br, then gzip, honouring q=0", () => {
  assert.equal(chooseEncoding(undefined), "identity");
  assert.equal(chooseEncoding("gzip, deflate, br"), "br");
  assert.equal(chooseEncoding("gzip"), "gzip");
  assert.equal(chooseEncoding("br;q=0, gzip"), "gzip");
  assert.equal(chooseEncoding("gzip;q=0.5, br;q=0.4"), "gzip");
  assert.equal(chooseEncoding("*"), "br");
  assert.equal(chooseEncoding("identity"), "identity");
  assert.equal(chooseEncoding("gzip;q=0"), "identity");
});

test("gzip and br round-trip to the identity bytes, with Vary and a coding-specific ETag", async (t) => {
  const { server } = await sampleServer(t);
  const url = `${server.url}/api/v1/grid/system-state?start=2025-06-01&end=2025-06-08`;
  const key = { "X-API-KEY": server.key };
  const plain = await rawGet(url, { ...key, "Accept-Encoding": "identity" });
  const gz = await rawGet(url, { ...key, "Accept-Encoding": "gzip" });
  const br = await rawGet(url, { ...key, "Accept-Encoding": "br, gzip" });
  assert.equal(plain.headers["content-encoding"], undefined);
  assert.equal(gz.headers["content-encoding"], "gzip");
  assert.equal(br.headers["content-encoding"], "br");
  assert.ok(gz.body.length < plain.body.length / 3);
  assert.deepEqual(gunzipSync(gz.body), plain.body);
  assert.deepEqual(brotliDecompressSync(br.body), plain.body);
  assert.equal(Number(gz.headers["content-length"]), gz.body.length);
  for (const res of [plain, gz, br]) assert.equal(res.headers["vary"], "Accept, Accept-Encoding");
  const tag = String(plain.headers["etag"]);
  assert.equal(gz.headers["etag"], tag.replace(/"$/, '-gz"'));
  assert.equal(br.headers["etag"], tag.replace(/"$/, '-br"'));
  // Any coding's tag validates the same data.
  const revalidated = await rawGet(url, {
    ...key,
    "Accept-Encoding": "identity",
    "If-None-Match": String(gz.headers["etag"]),
  });
  assert.equal(revalidated.status, 304);
});

test("bodies under 1 KB are not compressed", async (t) => {
  const { server } = await sampleServer(t);
  const res = await rawGet(
    `${server.url}/api/v1/grid/system-state?start=2025-06-01&end=2025-06-01T01:00:00Z`,
    {
      "X-API-KEY": server.key,
      "Accept-Encoding": "gzip, br",
    },
  );
  assert.ok(res.body.length < 1024);
  assert.equal(res.headers["content-encoding"], undefined);
  assert.equal(JSON.parse(res.body.toString()).data.length, 1);
});

test("a 304 carries the ETag the 200 carried, coding suffix included", async (t) => {
  const { server } = await sampleServer(t);
  for (const path of [
    "/api/v1/grid/system-state?start=2025-06-01&end=2025-06-08",
    "/api/v1/grid/system-state?start=2025-06-01&end=2025-06-01T01:00:00Z",
  ]) {
    const headers = { "X-API-KEY": server.key, "Accept-Encoding": "gzip" };
    const first = await rawGet(`${server.url}${path}`, headers);
    const again = await rawGet(`${server.url}${path}`, {
      ...headers,
      "If-None-Match": String(first.headers["etag"]),
    });
    assert.equal(again.status, 304);
    assert.equal(again.headers["etag"], first.headers["etag"], path);
  }
});
