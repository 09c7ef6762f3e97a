/**
 * What a dataset request costs against its key's limit (docs/api.md: "Whole histories"): one
 * request per 366 days of hourly records it asks for, JSON's bound, so that a 20-year CSV or
 * Parquet download counts as the 20 JSON requests it replaces. Anything else costs one. It is read
 * before the query is validated (the guard runs first): a query it cannot read costs one, and the
 * handler's 400 says what is wrong.
 */
import { DAY_MS } from "../time.ts";
import { parseInstant } from "./instant.ts";
import { chooseFormat, type Format, FORMATS } from "./negotiation.ts";
import { MAX_SPAN_DAYS } from "./range-query.ts";
import type { RequestContext, RequestHead } from "./router.ts";

/** The days of hourly records one request may ask for at the price of one. */
export const DAYS_PER_REQUEST = MAX_SPAN_DAYS["1h"];

/** How many requests `req` counts as. */
export function rangeCostOf(req: RequestHead, ctx: RequestContext): number {
  const params = ctx.url.searchParams;
  if ((params.get("interval") ?? "1h") !== "1h") return 1;
  const format = params.get("format");
  const chosen = chooseFormat(
    FORMATS.includes(format as Format) ? (format as Format) : undefined,
    req.headers.accept,
  );
  if (chosen === "json") return 1;
  const start = parseInstant(params.get("start") ?? "");
  const end = parseInstant(params.get("end") ?? "");
  if (typeof start === "string" || typeof end === "string" || end.ms <= start.ms) return 1;
  return Math.max(1, Math.ceil((end.ms - start.ms) / (DAYS_PER_REQUEST * DAY_MS)));
}
