/**
 * A stand-in for a PowerBI cluster on loopback, for the pull's tests (`POWERBI_API_URL` points at
 * it): the public report API's `modelsAndExploration` and `querydata`, for one report whose
 * resource key it knows, answering as the real service answers: a model and layout whose line
 * chart plots the capacity file's series, and the visual's rows as a compressed data shape (a
 * schema row, values repeated from the row before by the `R` bitmask, nulls by `Ø`, datetimes as
 * epoch ms of the wall clock, a window of rows at a time with a restart token). Its columns are
 * keyed in another order than the query's, as only the descriptor says which is which. Faults on
 * demand; nothing here reaches the internet.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";

/** One row of the report: the hour's wall-clock stamp (`2026-01-23 00:00:00`), then each series' value. */
export type ReportRow = readonly [string, ...(number | null)[]];

/** The series the stand-in's chart plots, as the model names their properties. */
export const SERIES = [
  "Available Capacity Incl Non Comm Units",
  "Available_Capacity_Incl_Non_Comm_Units_Incl_Total_RE",
  "Residual Demand",
  "RSA Contracted Demand",
] as const;

const ENTITY = "System hourly demand and available capacity";

/** What a test may change of how the stand-in answers. */
export interface PowerBiStandIn {
  /** The address, as POWERBI_API_URL takes it. */
  readonly url: string;
  /** Every request: method, path, and the headers that matter. */
  readonly requests: { method: string; path: string; key?: string; agent?: string; body?: string }[];
  /** The rows the report holds now. */
  rows: ReportRow[];
  /** The resource key it answers for; any other is a 404, as the service answers an unknown key. */
  resourceKey: string;
  /** The most rows one window holds (the service's own cap on a window). */
  windowRows: number;
  /** The property names its chart plots (change one, and the report no longer has that series). */
  series: readonly string[];
  /** How its answers' descriptors name the query's columns (the query's own names by default). */
  named: (name: string) => string;
  /** Answers requests whose path contains `match` with `behaviour` instead (the last one set wins). */
  on(
    match: string,
    behaviour: ((req: IncomingMessage, res: ServerResponse, n: number) => boolean) | undefined,
  ): void;
}

const select = (property: string, measure: boolean) => {
  const column = { Expression: { SourceRef: { Source: "s" } }, Property: property };
  return measure
    ? { Aggregation: { Expression: { Column: column }, Function: 0 }, Name: `Sum(${ENTITY}.${property})` }
    : { Column: column, Name: `${ENTITY}.${property}` };
};

// The model and layout: a text box, and the line chart of the series over DateTimeKey.
function modelsAndExploration(series: readonly string[]) {
  const chart = {
    name: "9f3c1d2e5a7b8c0d1e2f",
    singleVisual: {
      visualType: "lineChart",
      projections: {
        Category: [{ queryRef: `${ENTITY}.DateTimeKey` }],
        Y: series.map((p) => ({ queryRef: `Sum(${ENTITY}.${p})` })),
      },
      prototypeQuery: {
        Version: 2,
        From: [{ Name: "s", Entity: ENTITY, Type: 0 }],
        Select: [select("DateTimeKey", false), ...series.map((p) => select(p, true))],
      },
    },
  };
  const title = { name: "0a1b2c3d4e5f6a7b8c9d", singleVisual: { visualType: "textbox" } };
  return {
    models: [{ id: 4_101_207, dbName: "5d1c0b3a-9e8f-4a7b-8c6d-5e4f3a2b1c0d", displayName: ENTITY }],
    exploration: {
      report: { objectId: "7e6d5c4b-3a29-4180-9f8e-7d6c5b4a3928" },
      sections: [
        {
          name: "ReportSection",
          visualContainers: [title, chart].map((c) => ({ config: JSON.stringify(c) })),
        },
      ],
    },
  };
}

// The wall clock of a stamp, as the service writes a datetime: epoch ms as if it were UTC.
const wallClock = (stamp: string) => Date.parse(`${stamp.replace(" ", "T")}Z`);

// A window of rows as a data shape: keyed G0, M0… in the query's order, but laid out in the schema
// in another order (the measures reversed), repeats and nulls by bitmask.
function dataShape(
  names: readonly string[],
  rows: readonly ReportRow[],
  more: boolean,
  named: (name: string) => string,
) {
  const keys = names.map((_, i) => (i === 0 ? "G0" : `M${i - 1}`));
  const order = [0, ...keys.slice(1).map((_, i) => keys.length - 1 - i)]; // G0, then the measures reversed
  const schema = order.map((i) => ({ N: keys[i], T: i === 0 ? 7 : 3 }));
  let previous: (number | null)[] | undefined;
  const encoded = rows.map((row, r) => {
    const values = order.map((i): number | null => (i === 0 ? wallClock(row[0]) : (row[i] as number | null)));
    let repeated = 0;
    let nulls = 0;
    const given: number[] = [];
    values.forEach((value, j) => {
      if (value === null) nulls |= 1 << j;
      else if (previous !== undefined && previous[j] === value) repeated |= 1 << j;
      else given.push(value);
    });
    previous = values;
    return {
      ...(r === 0 ? { S: schema } : {}),
      C: given,
      ...(repeated ? { R: repeated } : {}),
      ...(nulls ? { Ø: nulls } : {}),
    };
  });
  const last = rows.at(-1)?.[0];
  const descriptor = {
    Select: keys.map((key, i) => ({ Kind: i === 0 ? 1 : 2, Depth: 0, Value: key, Name: named(names[i]!) })),
  };
  return {
    jobIds: ["c0ffee00-0000-4000-8000-000000000001"],
    results: [
      {
        jobId: "c0ffee00-0000-4000-8000-000000000001",
        result: {
          data: {
            timestamp: "2026-01-31T04:09:00.000Z",
            descriptor,
            dsr: {
              Version: 2,
              MinorVersion: 1,
              DS: [
                {
                  N: "DS0",
                  PH: [{ DM0: encoded }],
                  IC: !more,
                  ...(more && last !== undefined ? { RT: [[`datetime'${last.replace(" ", "T")}'`]] } : {}),
                },
              ],
            },
          },
        },
      },
    ],
  };
}

// The rows after a restart token (all of them without one).
function after(rows: readonly ReportRow[], tokens: unknown): readonly ReportRow[] {
  const token = Array.isArray(tokens) && Array.isArray(tokens[0]) ? String(tokens[0][0]) : undefined;
  if (token === undefined) return rows;
  const stamp = /^datetime'(.+)'$/.exec(token)?.[1]?.replace("T", " ");
  return rows.filter((row) => stamp !== undefined && row[0] > stamp);
}

/** Starts a stand-in cluster on a free loopback port, closed when the test ends. */
export async function startPowerBi(
  t: TestContext,
  resourceKey: string,
  rows: ReportRow[],
): Promise<PowerBiStandIn> {
  const behaviours: [string, (req: IncomingMessage, res: ServerResponse, n: number) => boolean][] = [];
  const counts = new Map<string, number>();
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const path = new URL(req.url!, "http://x").pathname;
      const key = req.headers["x-powerbi-resourcekey"] as string | undefined;
      stand.requests.push({ method: req.method!, path, key, agent: req.headers["user-agent"], body });
      for (const [match, behaviour] of [...behaviours].reverse()) {
        if (!path.includes(match)) continue;
        const n = (counts.get(match) ?? 0) + 1;
        counts.set(match, n);
        if (behaviour(req, res, n)) return;
      }
      if (key !== stand.resourceKey) return json(res, 404, { error: { code: "PowerBIEntityNotFound" } });
      if (path === `/public/reports/${stand.resourceKey}/modelsAndExploration`)
        return json(res, 200, modelsAndExploration(stand.series));
      if (path === "/public/reports/querydata" && req.method === "POST") {
        const query = JSON.parse(body);
        const command = query.queries[0].Query.Commands[0].SemanticQueryDataShapeCommand;
        const names = (command.Query.Select as { Name: string }[]).map((s) => s.Name);
        const window = command.Binding.DataReduction.Primary.Window;
        const rest = after(stand.rows, window.RestartTokens);
        const count = Math.min(window.Count, stand.windowRows);
        return json(res, 200, dataShape(names, rest.slice(0, count), rest.length > count, stand.named));
      }
      json(res, 404, { error: { code: "NotFound" } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(
    () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  );
  const stand: PowerBiStandIn = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: [],
    rows,
    resourceKey,
    windowRows: 100,
    series: SERIES,
    named: (name) => name,
    on(match, behaviour) {
      if (behaviour === undefined) {
        for (let i = behaviours.length - 1; i >= 0; i--)
          if (behaviours[i]![0] === match) behaviours.splice(i, 1);
      } else behaviours.push([match, behaviour]);
    },
  };
  return stand;
}
