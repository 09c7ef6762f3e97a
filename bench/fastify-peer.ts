/**
 * `make bench`'s peer: a Fastify 5 server doing the work the service does for a cached answer, the
 * way the field's most used framework does it. Every request's key is checked against the same key
 * file (the service's registry), counted by the same rolling-window limiter with its RateLimit
 * fields, and logged as one JSON line by pino (Fastify's own logger), then answered with the same
 * bytes from memory. Usage: node --import tsx bench/fastify-peer.ts <data dir> <body file> <port>
 */
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import Fastify from "fastify";
import { pino } from "pino";
import { createChangeGate } from "../src/files/change-gate.ts";
import { createKeyRegistry } from "../src/keys/key-registry.ts";
import { createLimiter } from "../src/limits/limiter.ts";

const [dir, bodyFile, port] = process.argv.slice(2);
if (dir === undefined || bodyFile === undefined || port === undefined) {
  throw new TypeError("Usage: fastify-peer.ts <data dir> <body file> <port>");
}
const body = readFileSync(bodyFile);
const registry = createKeyRegistry({ dir, gate: createChangeGate(dir) });
const limiter = createLimiter();
const LIMIT = 1_000_000;
// One line per request, as the service's access log has (pino adds its level and time).
const accessLog = pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime });

const app = Fastify({ logger: false });
app.addHook("onRequest", async (req, reply) => {
  const auth = registry.authenticate(req.headers["x-api-key"] as string | undefined);
  if (!auth.ok) return reply.code(401).send({ detail: "Invalid API key." });
  const result = limiter.check(auth.caller.id, "normalized_data", LIMIT);
  reply.header("RateLimit-Policy", `"normalized_data";q=${LIMIT};w=60`);
  reply.header("RateLimit", `"normalized_data";r=${result.remaining};t=${result.reset}`);
  reply.header("X-Content-Type-Options", "nosniff");
  if (!result.success) return reply.code(429).send({ detail: "Request was throttled." });
});
app.addHook("onResponse", async (req, reply) => {
  accessLog.info({
    request_id: req.id,
    method: req.method,
    path: req.url,
    status: reply.statusCode,
    duration_ms: reply.elapsedTime,
  });
});
app.get("/api/v1/grid/system-state", async (_req, reply) => reply.type("application/json").send(body));

// The same event-loop figure the service gives with GDS_LOOP_STATS=1.
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
process.on("SIGUSR2", () => {
  process.stderr.write(`${JSON.stringify({ event_loop_max_ms: Number((delay.max / 1e6).toFixed(2)) })}\n`);
  delay.reset();
});
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
await app.listen({ port: Number(port), host: "127.0.0.1" });
process.stderr.write("listening\n");
