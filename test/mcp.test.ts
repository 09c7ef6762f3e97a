/**
 * The MCP endpoint (/mcp) and `npm run mcp`, through the SDK's own client over Streamable HTTP and
 * over stdio, against a real server: the tools listed and called, their records equal to the
 * API's JSON for the same parameters, a large query answered by a summary and the API's URL, the
 * resources, and the key's limits and revocation applied to tool calls and to the messages.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ForecastIssues } from "../src/forecasts/forecast-issues.ts";
import { createKey, revokeKey } from "../src/keys/key-admin.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { generateSampleForecastIssues, SAMPLE_FORECAST_NAME } from "../src/sample/sample-forecast.ts";
import { ingestTexts, startServer, tempDir } from "./helpers.ts";

const HOUR = 3_600_000;
const LAST_HOUR = Date.parse("2026-01-31T21:00:00Z");
const ROOT = join(import.meta.dirname, "..");

async function served(t: TestContext) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": generateSampleExport({ lastHour: LAST_HOUR, days: 60 }) });
  const issues = new ForecastIssues(dir);
  for (const { text, receivedAt } of generateSampleForecastIssues(LAST_HOUR + 2 * HOUR, 3)) {
    issues.add(text, { name: SAMPLE_FORECAST_NAME, receivedAt, sha256: String(receivedAt), sample: true });
  }
  const server = await startServer(t, dir, { now: () => LAST_HOUR + 4 * HOUR });
  return { dir, server };
}

async function connect(t: TestContext, url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "gds-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  t.after(() => client.close());
  return client;
}

type Result = Awaited<ReturnType<Client["callTool"]>>;
const textOf = (result: Result) => (result.content as { type: string; text: string }[])[0]!.text;
/** The JSON after the tool's first line (the note on zones). */
const bodyOf = (result: Result) => JSON.parse(textOf(result).split("\n").at(-1)!) as Record<string, unknown>;

test("over HTTP: the tools, their answers equal to the API's, a summary for a large query, the resources", async (t) => {
  const { server } = await served(t);
  const client = await connect(t, server.url, { "X-API-KEY": server.key });
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ["list_datasets", "query_dataset", "latest", "grid_stress", "outlook", "forecast"],
  );
  const query = tools.find((tool) => tool.name === "query_dataset")!;
  assert.deepEqual(query.inputSchema.required, ["start", "end"]);
  // An assistant relaying the outlook is told what it cannot know, and how it did on real years.
  const outlookTool = tools.find((tool) => tool.name === "outlook")!.description!;
  assert.match(
    outlookTool,
    /not an announcement: it cannot know a stage Eskom announces after its newest data/,
  );
  assert.match(
    outlookTool,
    /Judged on 2021, 2022 and the months of October 2022 to May 2023, .*: say so when relaying a number\.$/,
  );
  assert.ok(
    (query.inputSchema.properties as Record<string, { enum?: string[] }>).interval!.enum!.includes("1mo"),
  );

  const week = await client.callTool({
    name: "query_dataset",
    arguments: { dataset: "generation.mix", start: "2026-01-20", end: "2026-01-27", interval: "1d" },
  });
  assert.equal(week.isError, undefined);
  assert.match(textOf(week), /^Every stamp carries its offset \(\+00:00 is UTC, \+02:00 is SAST/);
  const api = (await (
    await server.get("/api/v1/generation/mix?start=2026-01-20&end=2026-01-27&interval=1d")
  ).json()) as Record<string, unknown>;
  assert.deepEqual(bodyOf(week), api);

  const large = await client.callTool({
    name: "query_dataset",
    arguments: {
      dataset: "grid.system_state",
      start: "2026-01-01",
      end: "2026-01-31",
      columns: ["residual_demand_mw"],
    },
  });
  const summary = bodyOf(large) as {
    records: number;
    first: string;
    csv_url: string;
    fields: Record<string, { min: number }>;
    data?: unknown;
  };
  assert.equal(summary.records, 720);
  assert.equal(summary.data, undefined, "no records in the context");
  assert.equal(summary.first, "2026-01-01T00:00:00+00:00");
  assert.ok(textOf(large).length < 4000, `${textOf(large).length} characters`);
  const csv = await server.get(new URL(summary.csv_url).pathname + new URL(summary.csv_url).search);
  assert.equal((await csv.text()).trimEnd().split("\r\n").length, 721, "the URL gives the whole");

  const latest = bodyOf(
    await client.callTool({ name: "latest", arguments: { dataset: "grid.system_state", hours: 3 } }),
  );
  assert.deepEqual(latest, await (await server.get("/api/v1/grid/system-state/latest?hours=3")).json());
  const stress = await client.callTool({
    name: "grid_stress",
    arguments: { start: "2026-01-30", end: "2026-01-31", components: true },
  });
  assert.match(textOf(stress), /Bands: low: 0 to below 0\.3; moderate/);
  assert.deepEqual(
    bodyOf(stress),
    await (
      await server.get("/api/v1/features/grid-stress?start=2026-01-30&end=2026-01-31&components=true")
    ).json(),
  );
  const forecast = await client.callTool({
    name: "forecast",
    arguments: { start: "2026-02-01", end: "2026-02-02", issues: "all" },
  });
  assert.deepEqual(
    bodyOf(forecast),
    await (await server.get("/api/v1/forecasts/demand?start=2026-02-01&end=2026-02-02&issues=all")).json(),
  );
  // The outlook's own tool: no range; issued in the same hour, the same answer as the API's.
  const outlook = await client.callTool({ name: "outlook", arguments: { interval: "1d" } });
  assert.equal(outlook.isError, undefined, textOf(outlook));
  const days = bodyOf(outlook) as { meta: { issued_at: string }; data: unknown[] };
  assert.equal(days.meta.issued_at, "2026-02-01T01:00:00+00:00");
  assert.ok(days.data.length >= 8);
  assert.deepEqual(
    days,
    await (await server.get("/api/v1/features/load-shedding-outlook?interval=1d")).json(),
  );
  const catalog = bodyOf(await client.callTool({ name: "list_datasets", arguments: {} })) as {
    datasets: { id: string }[];
  };
  assert.ok(catalog.datasets.some((d) => d.id === "grid.availability_weekly"));

  const bad = await client.callTool({
    name: "query_dataset",
    arguments: { dataset: "generation.mix", start: "2026-01-20", end: "2026-01-21", interval: "2h" },
  });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /^The API answered 400 unsupported_interval: Unsupported interval '2h'/);

  const { resources } = await client.listResources();
  assert.deepEqual(
    resources.map((r) => r.uri),
    ["gds://reference/datasets", "gds://reference/grid-stress"],
  );
  const reference = await client.readResource({ uri: "gds://reference/datasets" });
  assert.match(
    (reference.contents[0] as { text: string }).text,
    /## generation\.mix: Generation mix[\s\S]*\| `wind_mw` \| Wind \| MW \|/,
  );
});

test("a tool call counts as the request it makes: past the key's limit the 429 text, a revoked key refused", async (t) => {
  const { dir, server } = await served(t);
  const limited = createKey(dir, { name: "agent", account: "tests", limits: { normalized_data: 2 } });
  const client = await connect(t, server.url, { Authorization: `Bearer ${limited.key}` });
  const call = () =>
    client.callTool({
      name: "query_dataset",
      arguments: { dataset: "grid.system_state", start: "2026-01-30", end: "2026-01-31", interval: "1d" },
    });
  assert.equal((await call()).isError, undefined);
  assert.equal((await call()).isError, undefined);
  const refused = await call();
  assert.equal(refused.isError, true);
  assert.match(
    textOf(refused),
    /^The API answered 429: Request was throttled\. Expected available in \d+ seconds?\. Retry after \d+ s\.$/,
  );
  const logged = server.logs.filter((entry) => entry.path === "/api/v1/grid/system-state");
  assert.deepEqual(
    logged.map((entry) => entry.status),
    [200, 200, 429],
  );
  assert.ok(
    logged.every((entry) => entry.key === limited.record.prefix),
    "counted against the agent's key",
  );

  revokeKey(dir, limited.record.id);
  await assert.rejects(call(), /401|Invalid API key/);
  const stranger = new Client({ name: "gds-test", version: "1" });
  await assert.rejects(
    stranger.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { "X-API-KEY": limited.key } },
      }),
    ),
    /401|Invalid API key/,
  );
  const missing = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{}",
  });
  assert.equal(missing.status, 401);
  assert.deepEqual(await missing.json(), { detail: "Authentication credentials were not provided." });
});

test("each message to /mcp counts against the key's metadata limit: RateLimit fields, then a 429 with Retry-After", async (t) => {
  const { dir, server } = await served(t);
  const agent = createKey(dir, { name: "agent", account: "tests", limits: { metadata: 3 } });
  const message = (method: string) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${agent.key}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }),
    });
  for (const remaining of [2, 1, 0]) {
    const res = await message("tools/list");
    assert.equal(res.status, 200);
    assert.ok(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length > 0);
    assert.equal(res.headers.get("ratelimit-policy"), '"metadata";q=3;w=60');
    assert.match(res.headers.get("ratelimit")!, new RegExp(`^"metadata";r=${remaining};t=\\d+$`));
    assert.match(res.headers.get("x-request-id")!, /^[0-9a-f]{12}-\w+$/);
  }
  const refused = await message("tools/list");
  assert.equal(refused.status, 429);
  assert.match(refused.headers.get("retry-after")!, /^\d+$/);
  assert.match(
    ((await refused.json()) as { detail: string }).detail,
    /^Request was throttled\. Expected available in \d+ seconds?\.$/,
  );
  assert.deepEqual(
    server.logs.filter((entry) => entry.path === "/mcp").map((entry) => [entry.status, entry.key]),
    [200, 200, 200, 429].map((status) => [status, agent.record.prefix]),
  );
  const missing = await fetch(`${server.url}/mcp`, { method: "POST", body: "{}" });
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get("www-authenticate"), "Bearer");
});

test("over stdio (npm run mcp): the same tools, asking the service with GDS_KEY", async (t) => {
  const { server } = await served(t);
  const client = new Client({ name: "gds-test", version: "1" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", join(ROOT, "scripts", "mcp.ts")],
    cwd: ROOT,
    env: { ...process.env, GDS_URL: server.url, GDS_KEY: server.key },
    stderr: "ignore",
  });
  await client.connect(transport);
  t.after(() => client.close());
  assert.equal((await client.listTools()).tools.length, 6);
  const week = await client.callTool({
    name: "query_dataset",
    arguments: {
      dataset: "generation.mix",
      start: "2026-01-20",
      end: "2026-01-27",
      interval: "1d",
      tz: "Africa/Johannesburg",
    },
  });
  const api = await (
    await server.get(
      "/api/v1/generation/mix?start=2026-01-20&end=2026-01-27&interval=1d&tz=Africa/Johannesburg",
    )
  ).json();
  assert.deepEqual(bodyOf(week), api);
});
