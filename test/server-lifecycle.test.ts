/** The real server process: graceful shutdown under load, and bounds against slow or greedy clients. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, createServer as createNetServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { createHardenedServer } from "../src/http/hardened-server.ts";
import { createShutdown } from "../src/http/graceful-shutdown.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { ingestTexts, tempDir, waitFor } from "./helpers.ts";
import { REDIS_SKIP, startRedis } from "./redis-helpers.ts";
import { LISTEN_FAILED } from "../src/listen.ts";
import { once } from "node:events";
import { readdirSync } from "node:fs";

const ROOT = join(import.meta.dirname, "..");
// A year of sample data, made once for the file's tests.
const YEAR = generateSampleExport({ firstDay: "2025-01-01", days: 366 });
const BIG = "/api/v1/grid/system-state?start=2025-01-01&end=2026-01-01&format=csv";

/** Starts `src/main.ts` on a free port over a year of sample data; resolves once it listens. */
async function startProcess(t: TestContext, env: Record<string, string> = {}) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": YEAR });
  const { key } = createKey(dir, {
    name: "load",
    account: "tests",
    limits: { normalized_data: 1_000_000, features: 1_000_000, metadata: 1_000_000 },
  });
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.after(() => child.kill("SIGKILL"));
  let stderr = "";
  child.stdout.resume();
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", () => reject(new Error(`the server exited: ${stderr}`)));
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on("exit", (code) => resolve({ code, at: Date.now() })),
  );
  return { child, port, key, exited, stderr: () => stderr };
}

/** A GET whose body is not read until `read` is called (so the response stays in flight). */
function held(port: number, key: string): Promise<{ res: IncomingMessage; read: () => Promise<Buffer> }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: "127.0.0.1", path: BIG, headers: { "X-API-KEY": key } }, (res) => {
      res.pause();
      resolve({
        res,
        read: () =>
          new Promise((done, fail) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => done(Buffer.concat(chunks)));
            res.on("error", fail);
            res.on("aborted", () => fail(new Error("aborted")));
            res.resume();
          }),
      });
    });
    req.on("error", reject);
    req.end();
  });
}

function signal(child: ChildProcess, name: NodeJS.Signals) {
  child.kill(name);
}

test("SIGTERM lets every response in flight finish whole, refuses new connections, and exits 0", async (t) => {
  const server = await startProcess(t, { SHUTDOWN_GRACE_S: "20" });
  const inFlight = await Promise.all(Array.from({ length: 6 }, () => held(server.port, server.key)));
  const sent = Date.now();
  signal(server.child, "SIGTERM");
  // The listener takes what the kernel already queued for a moment (closeListener), then closes.
  const attempt = () =>
    new Promise<string>((resolve) => {
      const req = request({ port: server.port, host: "127.0.0.1", path: "/healthz" }, (res) => {
        res.resume();
        resolve("served");
      });
      req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      req.end();
    });
  await waitFor(async () => (await attempt()) === "ECONNREFUSED", "no new connections once stopping", {
    everyMs: 100,
  });
  const bodies = await Promise.all(inFlight.map((r) => r.read()));
  for (const [i, body] of bodies.entries()) {
    assert.equal(body.length, Number(inFlight[i]!.res.headers["content-length"]), `response ${i} is whole`);
    assert.ok(body.toString("utf8").startsWith("ts,residual_demand_mw"));
  }
  const { code, at } = await server.exited;
  assert.equal(code, 0);
  assert.ok(at - sent < 20_000, "it exits when the last response is done, not at the end of the grace");
  assert.match(server.stderr(), /SIGTERM: no new connections/);
});

test("a copy of the signal within a second is the same stop; one after that exits at once, whatever is in flight", async (t) => {
  const server = await startProcess(t, { SHUTDOWN_GRACE_S: "60", REQUEST_TIMEOUT_S: "60" });
  // A form post whose body never finishes arriving: its request stays in flight.
  // Once connected it is the server's: a connection whose request is unread yet is waited for.
  const stuck = connect(server.port, "127.0.0.1");
  stuck.on("error", () => {});
  await new Promise((resolve) => stuck.once("connect", resolve));
  stuck.write(
    "POST /dashboard/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
      "Content-Length: 100\r\n\r\nusername=a",
  );
  signal(server.child, "SIGTERM");
  // Two quick signals may reach Node as one: the copy goes once the first is taken.
  await waitFor(() => server.stderr().includes("SIGTERM: no new connections"), "the first signal");
  signal(server.child, "SIGTERM"); // as make relays it, or a supervisor signalling a group twice
  await waitFor(
    () => /SIGTERM again within a second \(relayed\): still finishing/.test(server.stderr()),
    "the copy",
  );
  // More than a second after the first, a signal is a person insisting.
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  assert.equal(server.child.exitCode, null, "the first signal, and its copy, wait for the request");
  const sent = Date.now();
  signal(server.child, "SIGINT");
  const { code, at } = await server.exited;
  assert.equal(code, 1);
  assert.ok(at - sent < 5_000, `exited ${at - sent} ms after the second signal, not after the 60 s grace`);
  stuck.destroy();
});

/** Starts `make serve` in its own process group (as a terminal's job or a supervisor's child). */
async function startMakeServe(t: TestContext, dir: string) {
  // make's own variables would leak into the child make from a `make test` run.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !["MAKEFLAGS", "MFLAGS", "MAKELEVEL"].includes(name)),
  );
  const make = spawn("make", ["--no-print-directory", "serve"], {
    cwd: ROOT,
    env: { ...env, DATA_DIR: dir, PORT: "0", SHUTDOWN_GRACE_S: "20" },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  t.after(() => {
    if (make.exitCode === null && make.signalCode === null) process.kill(-make.pid!, "SIGKILL");
  });
  let stderr = "";
  make.stderr.on("data", (chunk) => (stderr += chunk));
  const ended = new Promise<{ at: number; code: number | null }>((resolve) =>
    make.on("exit", (code) => resolve({ at: Date.now(), code })),
  );
  // Port 0: the server says which port it got (a port chosen here could be taken meanwhile).
  const port = await new Promise<number>((resolve, reject) => {
    make.stderr.on("data", () => {
      const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (listening) resolve(Number(listening[1]));
    });
    make.on("exit", () => reject(new Error(`make serve exited: ${stderr}`)));
  });
  return { port, ended, stderr: () => stderr, group: -make.pid! };
}

/** A year of sample data and a key without limits. */
function yearStore(t: TestContext) {
  const dir = tempDir(t);
  ingestTexts(dir, { "sample.csv": YEAR });
  const { key } = createKey(dir, { name: "load", account: "tests", limits: { normalized_data: 1_000_000 } });
  return { dir, key };
}

test("make serve drains on a SIGTERM or SIGINT to its process group: every response in flight is whole, nothing is left behind", async (t) => {
  const { dir, key } = yearStore(t);
  for (const name of ["SIGTERM", "SIGINT"] as const) {
    const serve = await startMakeServe(t, dir);
    const inFlight = await Promise.all(Array.from({ length: 8 }, () => held(serve.port, key)));
    const sent = Date.now();
    process.kill(serve.group, name);
    const bodies = await Promise.all(inFlight.map((r) => r.read()));
    for (const [i, body] of bodies.entries()) {
      assert.equal(
        body.length,
        Number(inFlight[i]!.res.headers["content-length"]),
        `${name}: response ${i} is whole`,
      );
      assert.ok(body.length > 200_000);
    }
    const { at } = await serve.ended;
    assert.ok(at - sent < 20_000, `${name}: stopped ${at - sent} ms after the signal`);
    assert.match(serve.stderr(), /stopped: every request finished and the state is written/, serve.stderr());
    assert.doesNotMatch(serve.stderr(), /exiting now/);
    const left = readdirSync(dir, { recursive: true }).filter((f) => String(f).includes(".tmp-"));
    assert.deepEqual(left, [], `${name}: no temp file left`);
  }
});

test("eight requests sent on new connections, then SIGTERM to make serve's group at once: all eight complete whole, and it exits 0", async (t) => {
  const { dir, key } = yearStore(t);
  const serve = await startMakeServe(t, dir);
  // New connections each (no keep-alive agent), sent at once; the signal goes once all eight are
  // connected (the kernel's, then the server's), before any is answered.
  const agent = new Agent({ keepAlive: false });
  const connected: Promise<unknown>[] = [];
  const bodies = Array.from(
    { length: 8 },
    () =>
      new Promise<{ body: Buffer; length: number }>((resolve, reject) => {
        const req = request(
          { port: serve.port, host: "127.0.0.1", path: BIG, agent, headers: { "X-API-KEY": key } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              resolve({ body: Buffer.concat(chunks), length: Number(res.headers["content-length"]) }),
            );
            res.on("aborted", () => reject(new Error("aborted")));
          },
        );
        connected.push(
          new Promise((resolve) => req.on("socket", (socket) => socket.once("connect", resolve))),
        );
        req.on("error", reject);
        req.end();
      }),
  );
  await Promise.all(connected);
  const signalled = Date.now();
  process.kill(serve.group, "SIGTERM");
  // What the server said is the clue when a response fails (a grace period that ran out, a reset).
  const answers = await Promise.all(bodies).catch((error: Error) => {
    throw new Error(`${error.message}; make serve said:\n${serve.stderr()}`, { cause: error });
  });
  for (const [i, { body, length }] of answers.entries()) {
    assert.equal(body.length, length, `response ${i} is whole`);
    assert.ok(length > 200_000);
  }
  const { at } = await serve.ended;
  // make itself ends by the signal; the server's exit is 0 when it says it stopped (make would
  // print "Error 1" for another code).
  assert.match(serve.stderr(), /stopped: every request finished and the state is written/);
  assert.doesNotMatch(serve.stderr(), /Error \d|exiting now/);
  assert.ok(
    at - signalled < 20_000,
    `stopped ${at - signalled} ms after the signal, within the grace period`,
  );
});

/** A hardened server on port 0 answering "ok". */
async function hardened(t: TestContext, limits: Partial<Parameters<typeof createHardenedServer>[1]> = {}) {
  const server = createHardenedServer((_req, res) => res.end("ok"), {
    headersTimeoutMs: 600,
    requestTimeoutMs: 2000,
    keepAliveTimeoutMs: 1000,
    maxHeaderBytes: 16 * 1024,
    maxConnectionsPerAddress: 64,
    checkIntervalMs: 100,
    ...limits,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(
    () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  );
  return (server.address() as AddressInfo).port;
}

function slowloris(port: number): { socket: Socket; closed: Promise<number> } {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.write("GET / HTTP/1.1\r\nHost: x\r\n");
  const timer = setInterval(() => socket.writable && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 150);
  const closed = new Promise<number>((resolve) =>
    socket.on("close", () => {
      clearInterval(timer);
      resolve(Date.now());
    }),
  );
  return { socket, closed };
}

test("a slowloris connection is cut at the headers deadline while normal requests are served", async (t) => {
  const port = await hardened(t);
  const started = Date.now();
  const slow = Array.from({ length: 10 }, () => slowloris(port));
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await res.text(), "ok");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const closedAt = await Promise.all(slow.map((s) => s.closed));
  for (const at of closedAt)
    assert.ok(at - started < 3000, `cut after ${at - started} ms (bound 600 ms + checks)`);
});

test("one address holds at most its share of connections", async (t) => {
  const port = await hardened(t, { maxConnectionsPerAddress: 3 });
  const sockets = Array.from({ length: 4 }, () => connect(port, "127.0.0.1"));
  for (const s of sockets) s.on("error", () => {});
  t.after(() => sockets.forEach((s) => s.destroy()));
  let timer: NodeJS.Timeout | undefined;
  const closed = await new Promise<number>((resolve) => {
    sockets[3]!.on("close", () => resolve(3));
    timer = setTimeout(() => resolve(-1), 30_000);
  });
  clearTimeout(timer);
  assert.equal(closed, 3, "the fourth is closed at once");
  assert.equal(sockets.slice(0, 3).filter((s) => s.destroyed).length, 0);
});

test("headers over the size cap get 431", async (t) => {
  const port = await hardened(t, { maxHeaderBytes: 2048 });
  const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { "X-Big": "x".repeat(4096) } });
  assert.equal(res.status, 431);
});

test("shutdown waits for slow responses to finish, closes idle keep-alive connections at once, and serves a first request that comes soon", async (t) => {
  let received = 0;
  const slowly = async (res: ServerResponse) => {
    received++;
    res.writeHead(200, { "Content-Type": "text/plain" });
    for (let i = 0; i < 8; i++) {
      res.write(`chunk ${i}\n`);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    res.end("done\n");
  };
  const server = createHardenedServer((_req, res) => void slowly(res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.closeAllConnections());
  const port = (server.address() as AddressInfo).port;
  const exits: number[] = [];
  const flushed: string[] = [];
  let clock = 0;
  const shutdown = createShutdown(server, {
    graceMs: 10_000,
    firstRequestWaitMs: 400,
    log: () => {},
    flush: () => Promise.resolve(void flushed.push("flushed")),
    exit: (code) => exits.push(code),
    now: () => clock,
  });
  const get = (agent?: Agent) =>
    new Promise<string>((resolve, reject) => {
      request({ port, host: "127.0.0.1", path: "/", agent }, (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve(text));
        res.on("aborted", () => reject(new Error("cut")));
      })
        .on("error", reject)
        .end();
    });
  // A keep-alive connection that has been served, and is idle between requests.
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  await get(keepAlive);
  const [idle] = Object.values(keepAlive.sockets).flat().concat(Object.values(keepAlive.freeSockets).flat());
  const idleClosed = new Promise((resolve) => idle!.on("close", resolve));
  // A connection that has sent nothing yet, and one that sends its request after the signal.
  const silent = connect(port, "127.0.0.1");
  const silentClosed = new Promise<number>((resolve) => silent.on("close", () => resolve(Date.now())));
  const late = connect(port, "127.0.0.1");
  let lateAnswer = "";
  late.on("data", (chunk: Buffer) => (lateAnswer += chunk.toString("latin1")));
  const lateClosed = new Promise((resolve) => late.on("close", resolve));
  const bodies = Array.from({ length: 4 }, () => get());
  // Wait until the server holds the four requests, however busy the machine is.
  while (received < 5) await new Promise((resolve) => setTimeout(resolve, 5));
  const stopped = Date.now();
  shutdown("SIGTERM");
  await idleClosed;
  late.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  for (const body of await Promise.all(bodies)) assert.ok(body.endsWith("chunk 7\ndone\n"), body);
  await lateClosed;
  assert.match(
    lateAnswer,
    /^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*chunk 7\n[\s\S]*done\n/,
    "served, then closed",
  );
  const silentAt = await silentClosed;
  assert.ok(
    silentAt - stopped >= 350,
    `a connection with no request waits for it (${silentAt - stopped} ms)`,
  );
  await waitFor(() => exits.length > 0, "the stop's exit");
  assert.deepEqual(flushed, ["flushed"]);
  assert.deepEqual(exits, [0]);
  clock += 999;
  shutdown("SIGTERM");
  assert.deepEqual(exits, [0], "a copy within a second is the same stop");
  clock += 1;
  shutdown("SIGINT");
  assert.deepEqual(exits, [0, 1], "a second signal a second later exits at once");
});

// A hardened server on a free port and its graceful shutdown, the exit codes it asks for recorded.
async function withShutdown(t: TestContext, listener: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createHardenedServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.closeAllConnections());
  const exits: number[] = [];
  const shutdown = createShutdown(server, {
    graceMs: 10_000,
    log: () => {},
    flush: () => Promise.resolve(),
    exit: (code) => exits.push(code),
  });
  return { port: (server.address() as AddressInfo).port, exits, shutdown };
}

test("a response begun after the signal says Connection: close, and its connection then closes", async (t) => {
  let arrived: () => void;
  const received = new Promise<void>((resolve) => (arrived = resolve));
  const { port, exits, shutdown } = await withShutdown(t, (_req, res) => {
    arrived();
    setTimeout(() => res.end("late"), 150);
  });
  const answer = new Promise<{ connection: string | undefined; body: string }>((resolve, reject) => {
    request({ port, host: "127.0.0.1", path: "/", agent: new Agent({ keepAlive: true }) }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ connection: res.headers.connection, body }));
    })
      .on("error", reject)
      .end();
  });
  await received;
  shutdown("SIGTERM");
  assert.deepEqual(await answer, { connection: "close", body: "late" });
  await waitFor(() => exits.length > 0, "the stop's exit");
  assert.deepEqual(exits, [0], "the keep-alive connection closed after its response, so the server stopped");
});

test("with pipelined requests at the signal, the one in flight is answered whole with Connection: close, then the connection closes", async (t) => {
  let arrived: () => void;
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
  const { port, exits, shutdown } = await withShutdown(t, (req, res) => {
    if (req.url === "/slow") {
      arrived();
      setTimeout(() => res.end("slow"), 150);
    } else res.end("fast");
  });
  const socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
  const closed = new Promise((resolve) => socket.on("close", resolve));
  socket.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
  await slowArrived;
  shutdown("SIGTERM");
  await closed;
  // RFC 9112 §9.6: after a response with "close" the server answers nothing more on that
  // connection; a pipelining client sends the rest again on a new one.
  assert.match(received, /^HTTP\/1\.1 200 OK\r\nConnection: close\r\n(.|\r\n)*\r\n\r\nslow$/);
  await waitFor(() => exits.length > 0, "the stop's exit");
  assert.deepEqual(exits, [0]);
});

/** Runs `src/main.ts` on an empty store with `env` until it exits: its exit code and what it said. */
async function runUntilExit(t: TestContext, env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: tempDir(t), ...env },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  // A server that listened after all would run on: its group is killed when the test ends.
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr };
}

/** A port another process listens on, for the test. */
async function heldPort(t: TestContext): Promise<string> {
  const held = createNetServer().listen(0, "127.0.0.1");
  await once(held, "listening");
  t.after(() => held.close());
  return String((held.address() as AddressInfo).port);
}

const inUse = (where: string, setting: string) =>
  new RegExp(
    `^Cannot listen on 127\\.0\\.0\\.1:${where} \\(${setting.replace("PORT", "HOST")}, ${setting}\\): ` +
      `another process listens there\\. Stop it, or set ${setting} to a free port\\.$`,
    "m",
  );

test("a port another process listens on: one line naming the setting, no stack, and exit 78", async (t) => {
  const port = await heldPort(t);
  const api = await runUntilExit(t, { PORT: port });
  assert.equal(api.code, LISTEN_FAILED, api.stderr);
  assert.match(api.stderr, inUse(port, "PORT"));
  assert.doesNotMatch(api.stderr, /^\s+at /m, "no stack trace");

  const metrics = await runUntilExit(t, { PORT: "0", METRICS_PORT: port });
  assert.equal(metrics.code, LISTEN_FAILED, metrics.stderr);
  assert.match(metrics.stderr, inUse(port, "METRICS_PORT"));
  assert.doesNotMatch(metrics.stderr, /^\s+at /m, "no stack trace");
});

test(
  "with WORKERS, a port held elsewhere stops the primary with exit 78, rather than start worker after worker",
  { skip: REDIS_SKIP },
  async (t) => {
    const redis = await startRedis(t);
    const port = await heldPort(t);
    const env = { WORKERS: "2", REDIS_URL: redis.url };
    const api = await runUntilExit(t, { ...env, PORT: port });
    assert.equal(api.code, LISTEN_FAILED, api.stderr);
    assert.match(api.stderr, inUse(port, "PORT"));
    assert.match(api.stderr, /^Worker \d+ could not listen: stopping [01] workers?$/m);
    assert.doesNotMatch(api.stderr, /starting another/);

    const metrics = await runUntilExit(t, { ...env, PORT: "0", METRICS_PORT: port });
    assert.equal(metrics.code, LISTEN_FAILED, metrics.stderr);
    assert.match(metrics.stderr, inUse(port, "METRICS_PORT"));
    assert.match(metrics.stderr, /^No metrics listener: stopping 2 workers$/m);
  },
);
