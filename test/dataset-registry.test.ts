/**
 * A dataset is one definition (`src/datasets/registry.ts`): a dataset defined by a test alone
 * (`fixtures/fixture-dataset.ts`), registered beside the service's own, is found with no other
 * edit in every place a dataset appears: its routes and their answers, the catalog, the OpenAPI
 * document, the docs' field tables, the portal files it reads (from its columns), the pull's
 * events, the explorer's list, labels and charts, and the MCP tools and resources. (The Python
 * client finds it through the catalog too: test/python-client.test.ts.) And every field the
 * service's datasets declare reads the source columns it names, and no other.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { sourcesOf } from "../src/datasets/dataset-sources.ts";
import { DATASETS } from "../src/datasets/registry.ts";
import { fileEvents } from "../src/pull/pull-events.ts";
import type { FileState } from "../src/pull/pull-state.ts";
import { withFieldTables } from "../src/records/field-tables.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { columns } from "../src/source/columns.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { account, Client, PASSWORD } from "./dashboard-helpers.ts";
import { fixtureDataset } from "./fixtures/fixture-dataset.ts";
import { ingestTexts, startServer, tempDir } from "./helpers.ts";

const WITH_FIXTURE = [...DATASETS, fixtureDataset];
const DEMAND_FILE = "System_hourly_actual_and_forecasted_demand.csv";
const RANGE = "start=2025-03-02&end=2025-03-04";

test("a dataset registered from one definition is served, listed, documented, sourced, charted and offered over MCP", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-03-01", days: 5 }) });
  const server = await startServer(t, dir, { datasets: WITH_FIXTURE });
  const json = async (path: string) => {
    const res = await server.get(path);
    assert.equal(res.status, 200, `${path}: ${res.status}`);
    return (await res.json()) as Record<string, unknown> & { data: Record<string, unknown>[] };
  };

  // Its routes, answering as every dataset does: its hours are system state's residual demand.
  const hours = await json(`/api/v1/test/peak-demand?${RANGE}`);
  const state = await json(`/api/v1/grid/system-state?${RANGE}`);
  assert.equal(hours.data.length, 48);
  assert.deepEqual(
    hours.data.map((r) => [r.ts, r.demand_mw]),
    state.data.map((r) => [r.ts, r.residual_demand_mw]),
  );
  const days = await json(`/api/v1/test/peak-demand?${RANGE}&interval=1d`);
  assert.deepEqual(Object.keys(days.data[0]!), ["date", "peak_demand_mw", "hours"]);
  assert.equal((await json(`/api/v1/test/peak-demand/latest?hours=3`)).data.length, 3);
  const csv = await server.get(`/api/v1/test/peak-demand?${RANGE}&format=csv`);
  assert.match(await csv.text(), /^ts,demand_mw\r\n/);
  assert.match(csv.headers.get("content-disposition")!, /test\.peak_demand_1h_/);

  // The catalog: its title, kind, fields with labels and source columns, and its portal file.
  const catalog = (await json("/api/v1/datasets")) as unknown as {
    datasets: { id: string; title: string; kind: string; fields: Record<string, { name: string }[]> }[];
  };
  const listed = catalog.datasets.find((d) => d.id === "test.peak_demand")!;
  assert.equal(listed.title, "Peak demand (a test's)");
  assert.equal(listed.kind, "readings");
  assert.deepEqual(listed.fields["1h"]![1], {
    name: "demand_mw",
    label: "Demand",
    type: "number",
    unit: "MW",
    nullable: true,
    description: "Residual demand (`Residual Demand`).",
    aggregates: ["mean", "min", "max", "sum"],
    source_columns: ["residual_demand"],
  });

  // The OpenAPI document: both its operations, with its record's fields.
  const openapi = (await (await server.get("/api/v1/openapi.json")).json()) as {
    paths: Record<string, { get: { operationId: string } }>;
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
  };
  assert.equal(openapi.paths["/api/v1/test/peak-demand"]!.get.operationId, "getTestPeakDemand");
  assert.ok(openapi.paths["/api/v1/test/peak-demand/latest"]);
  assert.ok(openapi.components.schemas.TestPeakDemandHourlyRecord!.properties!.demand_mw);

  // The explorer: listed by its title, its field by its label and unit, its heatmap drawn.
  await account(dir, "analyst");
  const client = new Client(server.url);
  assert.equal((await client.signIn("analyst", PASSWORD)).status, 303);
  const page = await (
    await client.get(
      "/dashboard/explore?dataset=test.peak_demand&range=custom&start=2025-03-02&end=2025-03-04&interval=1h",
    )
  ).text();
  assert.match(page, /<option value="test.peak_demand"\s+selected>Peak demand \(a test&#39;s\)<\/option>/);
  assert.match(page, /<li><span class="swatch series-0"><\/span>Demand<\/li>/);
  assert.match(page, /class="chart heatmap"/);
  assert.match(page, /data-field="demand_mw" data-unit="MW" title="demand_mw">Demand<\/th>/);

  // MCP: a range of it through query_dataset, its own tool, and its section of the reference.
  const mcp = async (method: string, params: Record<string, unknown>) => {
    const res = await server.get("/mcp", {
      method: "POST",
      headers: {
        "X-API-KEY": server.key,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return ((await res.json()) as { result: Record<string, unknown> }).result;
  };
  const tools = (await mcp("tools/list", {})).tools as {
    name: string;
    inputSchema: { properties: Record<string, { enum?: string[] }> };
  }[];
  const query = tools.find((tool) => tool.name === "query_dataset")!;
  assert.ok(query.inputSchema.properties.dataset!.enum!.includes("test.peak_demand"));
  assert.ok(
    tools
      .find((tool) => tool.name === "latest")!
      .inputSchema.properties.dataset!.enum!.includes("test.peak_demand"),
  );
  assert.ok(tools.some((tool) => tool.name === "peak_demand"));
  const called = (await mcp("tools/call", {
    name: "peak_demand",
    arguments: { start: "2025-03-02", end: "2025-03-04", interval: "1d" },
  })) as { content: { text: string }[] };
  assert.deepEqual(JSON.parse(called.content[0]!.text.split("\n")[1]!).data, days.data);
  const reference = (await mcp("resources/read", { uri: "gds://reference/datasets" })) as {
    contents: { text: string }[];
  };
  assert.match(reference.contents[0]!.text, /## test\.peak_demand: Peak demand \(a test's\)/);
  assert.match(reference.contents[0]!.text, /\| `demand_mw` \| Demand \| MW \|/);
  assert.match(
    reference.contents[0]!.text,
    /Read from the portal's `System_hourly_actual_and_forecasted_demand\.csv`/,
  );
});

test("a registered dataset's field table, portal files and pull events follow from its definition", () => {
  const page = withFieldTables("<!-- fields: test.peak_demand 1d -->\n<!-- /fields -->", WITH_FIXTURE);
  assert.match(page, /\| `peak_demand_mw` \| Peak demand \| MW \| The day's highest hourly demand\. \|/);
  // Its one column comes from the demand file (the capacity file's copy of demand is only checked).
  assert.deepEqual(sourcesOf(fixtureDataset), [DEMAND_FILE]);
  const state = { newest: "2025-03-04T21:00:00.000Z", ingested: "2025-03-05T06:00:00.000Z" } as FileState;
  const events = fileEvents(
    { file: DEMAND_FILE, result: "ingested", hoursAdded: 24, hoursRevised: 0 },
    state,
    WITH_FIXTURE,
  );
  const published = events.find((e) => e.data.dataset === "test.peak_demand");
  assert.equal(published?.type, "data.published");
  assert.match(
    published.data.url as string,
    /^\/api\/v1\/test\/peak-demand\?start=2025-02-25&end=2025-03-05$/,
  );
  const other = fileEvents(
    { file: "Hourly_Generation.csv", result: "ingested", hoursAdded: 1 },
    state,
    WITH_FIXTURE,
  );
  assert.ok(!other.some((e) => e.data.dataset === "test.peak_demand"), "a file it does not read");
});

test("every hourly field reads the source columns it names, and no other", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ firstDay: "2025-03-01", days: 3 }) });
  const day = createReadingStore({ dir }).day("2025-03-02")!;
  const names = columns.map((c) => c.name);
  // Every column but `kept` (and a missing value) changed, by a step of its own.
  const changed = (reading: Float64Array, kept: ReadonlySet<string>, step = 11) =>
    reading.map((v, i) => (kept.has(names[i]!) ? v : v * 1.37 + step));
  for (const dataset of [...DATASETS.filter((d) => d.kind === "readings"), fixtureDataset]) {
    const table = (dataset as typeof fixtureDataset).table;
    for (const [name, field] of Object.entries(table.hourly)) {
      const declared = new Set(field.columns ?? []);
      assert.ok(declared.size > 0, `${dataset.id}.${name} names its columns`);
      // (A column the sample has no value in, a live file's or a report's mark, reads nothing here.)
      let seen = false;
      let read = false;
      for (const hour of [6, 18]) {
        const value = (reading: Float64Array, before: Float64Array) => {
          const inputs = table.hour(reading, {
            hour: 0,
            previous: () => before,
            prepared: undefined as never,
          });
          return inputs === null ? null : field.value(inputs);
        };
        const [now, before] = [day.hours[hour]!, day.hours[hour - 1]!];
        const whole = value(now, before);
        assert.deepEqual(
          value(changed(now, declared), changed(before, declared)),
          whole,
          `${dataset.id}.${name}`,
        );
        // And what it names, changed, changes it.
        const none = new Set<string>();
        seen ||= whole !== null && [...declared].some((c) => !Number.isNaN(now[names.indexOf(c)]!));
        if (whole !== null && value(changed(now, none), changed(before, none, 5)) !== whole) read = true;
      }
      assert.ok(read || !seen, `${dataset.id}.${name} reads what it names`);
    }
  }
});
