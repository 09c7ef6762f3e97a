/**
 * `BENCH_PARTS=instructions make bench`: the instructions a request of (a) costs the service and
 * the bare server, counted by valgrind's callgrind (docs/performance.md). This VM exposes no
 * hardware counters and its speed drifts by a third within a minute, but callgrind counts the
 * instructions the process executes whatever else the host is doing: the same build gives the
 * same count to a few percent, so a change of 5% is seen in one run where CPU time needs many
 * pairs. What it cannot see is what makes an instruction slow (cache misses, the kernel's copy of
 * the body), so it complements the CPU-time pairs rather than replacing them.
 *
 * Each server runs under callgrind; after a short uncounted warm-up it is counted over windows of
 * `WINDOW` requests until three windows in a row agree within 3%. By default they are sent one
 * after another on one keep-alive connection; `BENCH_CONNECTIONS=n` spreads each window over n
 * connections at once, kept open for the whole count as `wrk` keeps its own, which is closer to the
 * load runs: there one stat of the data directory serves the requests of a turn of the event
 * loop. The count takes 8 to 12 windows: V8 compiles hot code on background threads, which
 * valgrind runs one at a time, and the count falls (with plateaus, hence three windows) before it
 * settles. Then the servers sit idle for `idleSeconds` and are counted again the same way: V8's
 * memory reducer collects an idle heap, and what a server costs afterwards is what a service
 * that was quiet overnight costs.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { Agent, get } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Requests counted per window. */
const WINDOW = 1000;
/** Requests before counting starts, uncounted (valgrind runs uncounted code several times faster). */
const WARM_UP = 2000;
/** Windows counted at most before the figure is taken as it is. */
const MAX_WINDOWS = 20;
/** The count is settled when this many windows in a row are within `SETTLED` of each other. */
const SETTLED_WINDOWS = 3;
const SETTLED = 0.03;
// callgrind_control finds a valgrind process by a name that includes $HOST (valgrind's vgdb
// reads it as the host name); the service reads HOST as its listening address. Both get this.
const HOST = "127.0.0.1";

export interface InstructionCounts {
  /** Instructions per request once settled, warm. */
  readonly warm: number;
  /** The same after the idle period. */
  readonly afterIdle: number;
  /** How many windows each took to settle (MAX_WINDOWS when it did not). */
  readonly windows: readonly [number, number];
}

/** Whether valgrind (with callgrind_control) can be run here. */
export function callgrindAvailable(): boolean {
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" });
    execFileSync("callgrind_control", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

interface Counted {
  readonly child: ChildProcess;
  readonly url: string;
  readonly outPrefix: string;
}

/** Starts `command args` under callgrind with counting off; resolves once it prints "listening". */
export async function startCounted(
  name: string,
  work: string,
  cwd: string,
  command: string[],
  env: Record<string, string>,
  port: number,
): Promise<Counted> {
  const outPrefix = `cg-${name}`;
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      `--callgrind-out-file=${join(work, outPrefix)}.%p.out`,
      ...command,
    ],
    { cwd, env: { ...process.env, ...env, HOST }, stdio: ["ignore", "ignore", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child.stderr.on("data", (chunk) => {
      seen = (seen + String(chunk)).slice(-4000); // valgrind writes to stderr too: kept short
      if (seen.includes("listening")) resolve();
    });
    child.on("exit", (code) =>
      reject(new Error(`${name} under valgrind exited with ${code}: ${seen.slice(-2000)}`)),
    );
  });
  return { child, url: `http://${HOST}:${port}`, outPrefix };
}

/** How `n` requests are shared among `parts` connections: as evenly as they go, `n` in all. */
export function shares(n: number, parts: number): number[] {
  return Array.from(
    { length: parts },
    (_, i) => Math.floor((n * (i + 1)) / parts) - Math.floor((n * i) / parts),
  );
}

/** `n` GET requests spread over `agents`' connections, one after another on each; every answer must be 200. */
async function requests(agents: readonly Agent[], url: string, n: number, headers: Record<string, string>) {
  const sent = shares(n, agents.length);
  await Promise.all(
    agents.map(async (agent, i) => {
      for (let k = 0; k < sent[i]!; k++) {
        await new Promise<void>((resolve, reject) => {
          get(url, { agent, headers }, (res) => {
            if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
            res.resume();
            res.on("end", resolve);
          }).on("error", reject);
        });
      }
    }),
  );
}

// One keep-alive connection each, kept across windows (a closed one is opened again).
function connections(count: number): Agent[] {
  return Array.from({ length: count }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
}

function control(server: Counted, ...args: string[]): void {
  execFileSync("callgrind_control", [...args, String(server.child.pid)], {
    env: { ...process.env, HOST },
    stdio: "ignore",
  });
}

// The dumps callgrind has written for `server`, oldest first (it numbers them .1, .2, ...).
function dumpsOf(server: Counted, work: string): string[] {
  const number = (file: string) => Number(file.slice(file.lastIndexOf(".") + 1));
  return readdirSync(work)
    .filter((file) => file.startsWith(`${server.outPrefix}.`) && /\.out\.\d+$/.test(file))
    .sort((a, b) => number(a) - number(b));
}

// The instruction total of the dump after the first `dumpsBefore`, once callgrind has written it.
async function nextDumpTotal(server: Counted, work: string, dumpsBefore: number): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const dumps = dumpsOf(server, work);
    if (dumps.length > dumpsBefore) {
      const m = /^totals: (\d+)/m.exec(readFileSync(join(work, dumps.at(-1)!), "utf8"));
      if (m !== null) return Number(m[1]);
    }
    await sleep(100);
  }
  throw new Error(`callgrind wrote no dump for ${server.outPrefix}`);
}

/** Counts windows of requests until they settle; returns instructions per request and windows used. */
async function settledCount(
  server: Counted,
  agents: readonly Agent[],
  work: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ perRequest: number; windows: number }> {
  const counts: number[] = [];
  for (let window = 1; window <= MAX_WINDOWS; window++) {
    const before = dumpsOf(server, work).length;
    control(server, "-z");
    await requests(agents, server.url + path, WINDOW, headers);
    control(server, "-d");
    counts.push(Math.round((await nextDumpTotal(server, work, before)) / WINDOW));
    const last = counts.slice(-SETTLED_WINDOWS);
    if (last.length === SETTLED_WINDOWS && Math.max(...last) <= (1 + SETTLED) * Math.min(...last)) {
      return { perRequest: Math.min(...last), windows: window };
    }
  }
  return { perRequest: counts.at(-1)!, windows: MAX_WINDOWS };
}

/**
 * Warms each server, counts it, leaves all idle for `idleSeconds`, then counts each again, with
 * `connectionCount` connections to each. The servers are counted one after another (their counts
 * do not depend on the host's load, but how soon V8's background compiler settles does), so a
 * later one sits idle longer.
 */
export async function countInstructions(
  servers: readonly Counted[],
  work: string,
  path: string,
  headers: Record<string, string>,
  idleSeconds: number,
  log: (text: string) => void,
  connectionCount = 1,
): Promise<InstructionCounts[]> {
  const agents = servers.map(() => connections(connectionCount));
  try {
    return await countEach(servers, agents, work, path, headers, idleSeconds, log);
  } finally {
    for (const list of agents) for (const agent of list) agent.destroy();
  }
}

async function countEach(
  servers: readonly Counted[],
  agents: readonly (readonly Agent[])[],
  work: string,
  path: string,
  headers: Record<string, string>,
  idleSeconds: number,
  log: (text: string) => void,
): Promise<InstructionCounts[]> {
  const warm: { perRequest: number; windows: number }[] = [];
  for (const [i, server] of servers.entries()) {
    await requests(agents[i]!, server.url + path, WARM_UP, headers);
    control(server, "-i", "on");
    warm.push(await settledCount(server, agents[i]!, work, path, headers));
    log(`  ${server.outPrefix}: ${warm.at(-1)!.perRequest} instructions/request warm`);
  }
  log(`  idle for ${idleSeconds} s…`);
  await sleep(idleSeconds * 1000);
  const counts: InstructionCounts[] = [];
  for (const [i, server] of servers.entries()) {
    const after = await settledCount(server, agents[i]!, work, path, headers);
    log(`  ${server.outPrefix}: ${after.perRequest} instructions/request after the idle period`);
    counts.push({
      warm: warm[i]!.perRequest,
      afterIdle: after.perRequest,
      windows: [warm[i]!.windows, after.windows],
    });
  }
  return counts;
}
