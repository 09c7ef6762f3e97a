/**
 * Requests and their durations, with prom-client's own Counter and Histogram:
 * `gds_http_requests_total{route,method,status}` and `gds_http_request_duration_seconds{route}`.
 */
import { Counter, Histogram, type Registry } from "prom-client";

/** Registers both metrics in `registry`; returns what counts one finished request. */
export function httpMetrics(
  registry: Registry,
  bounds: readonly number[],
): (route: string, method: string, status: number, seconds: number) => void {
  const requests = new Counter({
    name: "gds_http_requests_total",
    help: "HTTP requests answered, by route, method and status.",
    labelNames: ["route", "method", "status"],
    registers: [registry],
  });
  const durations = new Histogram({
    name: "gds_http_request_duration_seconds",
    help: "Time from a request's arrival to its last byte, by route.",
    labelNames: ["route"],
    buckets: [...bounds],
    registers: [registry],
  });
  return (route, method, status, seconds) => {
    requests.inc({ route, method, status });
    durations.observe({ route }, seconds);
  };
}
