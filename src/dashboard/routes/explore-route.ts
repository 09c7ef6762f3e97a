/**
 * `/dashboard/explore`: the explorer (docs/dashboard.md: "The explorer"). Its data comes from the
 * explorer's data routes (`EXPLORE_DATA` + the dataset's path), asked over this server's own
 * loopback connection with the reader's session: the same handler, the same bytes and the same
 * limits as the API's, counted against the signed-in account, never a second copy of the data.
 */
import type { IncomingMessage } from "node:http";
import type { DataRecord } from "../../datasets/dataset.ts";
import { STALE_AFTER_MS } from "../../http/health-handler.ts";
import { ownOrigin } from "../../http/own-origin.ts";
import type { Route } from "../../http/router.ts";
import { DATASET_SOURCES } from "../../pull/portal-files.ts";
import { storeFreshness } from "../../pull/source-freshness.ts";
import type { DashboardContext } from "../dashboard-context.ts";
import { sendPage } from "../dashboard-http.ts";
import { instantOf, viewCharts } from "../explore/explore-charts.ts";
import { recordsTable } from "../explore/explore-table.ts";
import { apiQuery, EXPLORE_DATA, type ExploreView, readView } from "../explore/explore-view.ts";
import { guarded } from "../guarded.ts";
import { explorePage } from "../pages/explore-page.ts";

interface DataAnswer {
  readonly status: number;
  readonly body: { meta?: { sample?: boolean }; data?: DataRecord[]; detail?: string };
  readonly retryAfter: string | null;
}

// The view's records, asked as the page's script and the downloads ask them.
async function fetchData(
  req: IncomingMessage,
  view: ExploreView,
  query: URLSearchParams,
): Promise<DataAnswer> {
  const url = `${ownOrigin(req)}${EXPLORE_DATA}${view.dataset.path}?${query.toString()}&format=json`;
  const res = await fetch(url, { headers: { cookie: req.headers.cookie ?? "", accept: "application/json" } });
  return {
    status: res.status,
    body: (await res.json()) as DataAnswer["body"],
    retryAfter: res.headers.get("retry-after"),
  };
}

// Why a view has nothing to draw: no data in the range, and which of its files stopped publishing.
function emptyText(ctx: DashboardContext, view: ExploreView): string {
  const { lastActual } = ctx.store.refresh();
  const files = DATASET_SOURCES[view.dataset.id] ?? [];
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

/** The explorer's page route. */
export function exploreRoute(ctx: DashboardContext): Route {
  const handler = guarded(ctx, {
    get: async (req, reply, who) => {
      const params = new URL(req.url ?? "/", "http://localhost").searchParams;
      const datasets = ctx.datasets ?? [];
      const { lastActual, sample } = ctx.store.refresh();
      const view = readView(params, datasets, lastActual ?? ctx.now());
      const query = apiQuery(view);
      const answer = await fetchData(req, view, query);
      const records = answer.status === 200 ? (answer.body.data ?? []) : [];
      const charts = viewCharts(view, records);
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
      const page = explorePage({
        viewer: who.viewer,
        datasets,
        view,
        query,
        charts,
        table: records.length === 0 ? undefined : recordsTable(records, fields, (r) => instantOf(view, r)),
        ...(empty === undefined ? {} : { empty }),
        sample: answer.body.meta?.sample === true || (records.length === 0 && sample),
        baseUrl: ctx.baseUrl(req),
        keyPrefix: key?.prefix ?? null,
      });
      const status = answer.status === 200 ? 200 : answer.status;
      sendPage(reply, page, {
        status,
        ...(answer.retryAfter === null ? {} : { headers: { "Retry-After": answer.retryAfter } }),
      });
    },
  });
  return { path: "/dashboard/explore", methods: ["GET", "HEAD"], scope: null, handler };
}
