/**
 * A webhook receiver on loopback for the tests, and the check of what it received with the
 * `standardwebhooks` package (an implementation this project does not write).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";
import { Webhook } from "standardwebhooks";

/** What one request brought. */
export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A receiver answering each request with the next of `statuses` (the last repeats), counting the
 * connections opened to it; closed after the test. `beforeAnswer`, when given, is awaited before
 * each answer.
 */
export async function receiver(
  t: TestContext,
  statuses: number[] = [204],
  headers: Record<string, string> = {},
  beforeAnswer: () => Promise<unknown> = () => Promise.resolve(),
) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      void beforeAnswer().then(() =>
        res.writeHead(statuses.length > 1 ? statuses.shift()! : statuses[0]!, headers).end("ok"),
      );
    });
  });
  const connections = { opened: 0 };
  server.on("connection", () => (connections.opened += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, received, statuses, connections };
}

/** The event a request carried, its signature verified under `secret` (throws when it does not verify). */
export function verify(secret: string, r: Received): { type: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(r.body, {
    "webhook-id": r.headers["webhook-id"] as string,
    "webhook-timestamp": r.headers["webhook-timestamp"] as string,
    "webhook-signature": r.headers["webhook-signature"] as string,
  }) as { type: string; data: Record<string, unknown> };
}
