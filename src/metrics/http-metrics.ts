/**
 * Requests and their durations, counted on the request path in plain maps and arrays, and read by
 * prom-client only at scrape time, as metrics registered through its public `registerMetric`.
 * prom-client's own Counter and Histogram hash and validate their label set on every update: about
 * a tenth of a cached request's CPU time in `make bench`, where this costs a map lookup and a few
 * additions.
 */
import type { Metric, Registry } from "prom-client";

/** One route's counts: by status and method, and its duration histogram. */
interface RouteCounts {
  readonly byStatus: Map<number, Map<string, number>>;
  /** Observations per bucket (not cumulative), the last for those above every bound. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

type Value = { labels: Record<string, string | number>; value: number; metricName?: string };

/** Registers `gds_http_requests_total` and `gds_http_request_duration_seconds`; returns the counter. */
export function httpMetrics(
  registry: Registry,
  bounds: readonly number[],
): (route: string, method: string, status: number, seconds: number) => void {
  const routes = new Map<string, RouteCounts>();
  const define = (name: string, help: string, type: "counter" | "histogram", values: () => Value[]) =>
    registry.registerMetric({
      name,
      help,
      type,
      aggregator: "sum",
      get: () => Promise.resolve({ name, help, type, aggregator: "sum", values: values() }),
      reset: () => routes.clear(),
    } as unknown as Metric);
  define("gds_http_requests_total", "HTTP requests answered, by route, method and status.", "counter", () =>
    [...routes].flatMap(([route, r]) =>
      [...r.byStatus].flatMap(([status, methods]) =>
        [...methods].map(([method, value]) => ({ labels: { route, method, status }, value })),
      ),
    ),
  );
  define(
    "gds_http_request_duration_seconds",
    "Time from a request's arrival to its last byte, by route.",
    "histogram",
    () =>
      [...routes].flatMap(([route, r]) =>
        histogramValues("gds_http_request_duration_seconds", route, r, bounds),
      ),
  );
  return (route, method, status, seconds) => {
    let r = routes.get(route);
    if (r === undefined) {
      r = { byStatus: new Map(), buckets: new Float64Array(bounds.length + 1), sum: 0, count: 0 };
      routes.set(route, r);
    }
    let methods = r.byStatus.get(status);
    if (methods === undefined) r.byStatus.set(status, (methods = new Map<string, number>()));
    methods.set(method, (methods.get(method) ?? 0) + 1);
    let b = 0;
    while (b < bounds.length && seconds > bounds[b]!) b++;
    r.buckets[b]!++;
    r.sum += seconds;
    r.count++;
  };
}

// A route's histogram as Prometheus writes one: cumulative buckets, +Inf, sum and count.
function histogramValues(name: string, route: string, r: RouteCounts, bounds: readonly number[]): Value[] {
  const values: Value[] = [];
  let cumulative = 0;
  bounds.forEach((le, i) => {
    cumulative += r.buckets[i]!;
    values.push({ labels: { route, le }, value: cumulative, metricName: `${name}_bucket` });
  });
  values.push({ labels: { route, le: "+Inf" }, value: r.count, metricName: `${name}_bucket` });
  values.push({ labels: { route }, value: r.sum, metricName: `${name}_sum` });
  values.push({ labels: { route }, value: r.count, metricName: `${name}_count` });
  return values;
}
