/**
 * `/dashboard/explore`: the explorer (docs/dashboard.md: "The explorer"), and
 * `/dashboard/explore/download`, the same view's records as a file. Its data is asked of the
 * dataset's own route in-process, for the signed-in account (`RequestContext.call`): the same
 * handler, the same bytes, the same limits, counting and access-log line as the API's, with no
 * second request and never a second copy of the data.
 */
import type { Caller } from "../../keys/key-registry.ts";
import type { DataRecord } from "../../records/dataset.ts";
import { sourcesOf } from "../../datasets/dataset-sources.ts";
import { STALE_AFTER_MS } from "../../http/health-handler.ts";
import type { CallAnswer } from "../../http/reply.ts";
import type { RequestContext, Route } from "../../http/router.ts";
import { storeFreshness } from "../../pull/source-freshness.ts";
import type { DashboardContext } from "../dashboard-context.ts";
import type { SignedIn } from "../dashboard-http.ts";
import { sendPage } from "../dashboard-http.ts";
import { instantOf, type Outcome, viewCharts } from "../explore/explore-charts.ts";
import { loadReduction } from "../../datasets/load-reduction.ts";
import { recordsTable } from "../explore/explore-table.ts";
import { apiQuery, EXPLORE_DOWNLOAD, type ExploreView, readView } from "../explore/explore-view.ts";
import { guarded } from "../guarded.ts";
import { explorePage } from "../pages/explore-page.ts";

/** The caller a signed-in account is: its own limits are the default ones. */
export function accountCaller(who: SignedIn): Caller {
  const name = who.account.name;
  return { id: `account:${name}`, account: name, prefix: `dashboard:${name}`, limits: {} };
}

interface DataAnswer {
  readonly status: number;
  readonly body: {
    meta?: { sample?: boolean; start?: string; end?: string };
    data?: DataRecord[];
    detail?: string;
  };
  readonly retryAfter: string | undefined;
}

// The view's records, asked of the dataset's route in-process for the reader.
async function viewData(request: RequestContext, who: SignedIn, view: ExploreView): Promise<DataAnswer> {
  const query = apiQuery(view);
  query.set("format", "json");
  const answer = await request.call(accountCaller(who), view.dataset.path, query);
  return {
    status: answer.status,
    body: JSON.parse(answer.body.toString()) as DataAnswer["body"],
    retryAfter: answer.headers["retry-after"],
  };
}

// What happened in the hours (or days) an outlook answered, as the store holds them now: 1 where
// load was reduced, 0 where not. Asked of load reduction's route, as the reader's request.
async function outcomeOf(
  request: RequestContext,
  who: SignedIn,
  view: ExploreView,
  meta: { start?: string; end?: string },
): Promise<Outcome | undefined> {
  if (meta.start === undefined || meta.end === undefined) return undefined;
  const query = new URLSearchParams({ start: meta.start, end: meta.end, tz: view.tz, format: "json" });
  if (view.interval === "1d") query.set("interval", "1d");
  const answer = await request.call(accountCaller(who), loadReduction.path, query);
  if (answer.status !== 200) return undefined;
  const records = (JSON.parse(answer.body.toString()) as { data: DataRecord[] }).data;
  const field = view.interval === "1d" ? "hours_with_manual_load_reduction" : "manual_load_reduction_mw";
  const points = records.map((r) => {
    const value = r[field];
    return [instantOf(view, r), typeof value === "number" ? (value > 0 ? 1 : 0) : null] as const;
  });
  return { label: "Load reduction (1: it happened)", points };
}

// Why a view has nothing to draw: no data in the range, and which of its files stopped publishing.
function emptyText(ctx: DashboardContext, view: ExploreView): string {
  if (view.dataset.unranged === true)
    return `No outlook${view.asOf === undefined ? "" : ` as of ${view.asOf}`}: the store held no load-reduction value in the 60 days before.`;
  const { lastActual } = ctx.store.refresh();
  const files = sourcesOf(view.dataset);
  const sources = storeFreshness(ctx.dir, lastActual, ctx.now(), ctx.staleAfterMs ?? STALE_AFTER_MS).sources;
  const stopped = sources.filter((s) => files.includes(s.file) && s.state === "stopped");
  return [
    `No data of ${view.dataset.id} from ${view.start} to ${view.end}${view.asOf === undefined ? "" : ` as of ${view.asOf}`}.`,
    ...stopped.map(
      (s) =>
        `${s.file} stopped publishing${s.gone_since === undefined ? "" : ` (gone since ${s.gone_since})`}; its last data is of ${s.newest_hour ?? "no hour kept here"}.`,
    ),
  ].join(" ");
}

// The view a request's query names.
function viewOf(ctx: DashboardContext, params: URLSearchParams): ExploreView {
  const { lastActual } = ctx.store.refresh();
  return readView(params, ctx.datasets ?? [], lastActual ?? ctx.now());
}

// The headers of the API's answer a download passes on.
const PASSED = ["content-type", "content-disposition", "data-source", "etag", "last-modified", "retry-after"];
const passed = (answer: CallAnswer) =>
  Object.fromEntries(PASSED.flatMap((name) => (answer.headers[name] ? [[name, answer.headers[name]]] : [])));

/** The explorer's page route and its download route. */
export function exploreRoutes(ctx: DashboardContext): Route[] {
  const page = guarded(ctx, {
    get: async (req, reply, who, request) => {
      const view = viewOf(ctx, new URL(req.url ?? "/", "http://localhost").searchParams);
      const answer = await viewData(request, who, view);
      const records = answer.status === 200 ? (answer.body.data ?? []) : [];
      const outcome =
        view.dataset.unranged === true && records.length > 0
          ? await outcomeOf(request, who, view, answer.body.meta ?? {})
          : undefined;
      const charts = viewCharts(view, records, outcome);
      const refused =
        answer.status === 429
          ? `Your account's limit for ${view.dataset.scope} is spent (the explorer's data counts as API requests do): ${answer.body.detail ?? ""}`
          : answer.status !== 200
            ? `The data request was refused (${answer.status}): ${answer.body.detail ?? ""}`
            : undefined;
      const empty =
        refused !== undefined
          ? { kind: "refused" as const, text: refused }
          : charts.length === 0
            ? { kind: "empty" as const, text: emptyText(ctx, view) }
            : undefined;
      const key = ctx.keys.records().find((k) => k.account === who.account.name && k.revoked === null);
      const fields = view.dataset.fields[view.interval === "1h" ? "1h" : "1d"];
      const html = explorePage({
        viewer: who.viewer,
        datasets: ctx.datasets ?? [],
        view,
        query: apiQuery(view),
        charts,
        table: records.length === 0 ? undefined : recordsTable(records, fields, (r) => instantOf(view, r)),
        ...(empty === undefined ? {} : { empty }),
        sample: answer.body.meta?.sample === true || (records.length === 0 && ctx.store.refresh().sample),
        baseUrl: ctx.baseUrl(req),
        keyPrefix: key?.prefix ?? null,
      });
      sendPage(reply, html, {
        status: answer.status,
        ...(answer.retryAfter === undefined ? {} : { headers: { "Retry-After": answer.retryAfter } }),
      });
    },
  });
  const download = guarded(ctx, {
    get: async (req, reply, who, request) => {
      const params = new URL(req.url ?? "/", "http://localhost").searchParams;
      const view = viewOf(ctx, params);
      const query = apiQuery(view);
      const format = params.get("format");
      if (format !== null) query.set("format", format);
      const answer = await request.call(accountCaller(who), view.dataset.path, query);
      reply.end(answer.status, answer.body, { ...passed(answer), "Cache-Control": "no-store" });
    },
  });
  return [
    { path: "/dashboard/explore", methods: ["GET", "HEAD"], scope: null, handler: page },
    { path: EXPLORE_DOWNLOAD, methods: ["GET", "HEAD"], scope: null, handler: download },
  ];
}
