/**
 * The metrics listener (`METRICS_PORT`, on `METRICS_HOST`, loopback by default): `GET /metrics`
 * in Prometheus' text format, and nothing else. It is a listener of its own, never the API's
 * port, so that metrics stay off the network an API faces.
 */
import { createServer, type Server } from "node:http";
import { listenAt } from "../listen.ts";

/** Starts the listener; `render` gives the exposition text at each scrape. */
export function startMetricsServer(options: {
  host: string;
  port: number;
  render: () => Promise<string>;
  contentType: string;
  log: (line: string) => void;
  /** Called with the reason when the port cannot be listened on (listen.ts). */
  failed: (why: string) => void;
}): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics") {
      res
        .writeHead(404, { "Content-Type": "text/plain; charset=utf-8" })
        .end("Not found: ask for /metrics\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" }).end();
      return;
    }
    options.render().then(
      (text) => {
        res.writeHead(200, { "Content-Type": options.contentType, "Cache-Control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        options.log(`Metrics scrape failed: ${(error as Error).message}`);
        res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end("Metrics failed\n");
      },
    );
  });
  const at = {
    host: options.host,
    port: options.port,
    hostSetting: "METRICS_HOST",
    portSetting: "METRICS_PORT",
  };
  listenAt(
    server,
    at,
    (port) => options.log(`Metrics at http://${options.host}:${port}/metrics`),
    options.failed,
  );
  return server;
}
