/**
 * Which functions a callgrind count went to, JavaScript included (docs/performance.md, "Where the
 * instructions went"). Callgrind names native functions itself, but code V8 compiled at run time is
 * only an address to it; `node --perf-basic-prof` writes where V8 put each compiled function
 * (`/tmp/perf-<pid>.map`: address, size and name in hex, one a line, later lines for reused
 * addresses). This reads a callgrind dump and that map and prints each function's own
 * instructions (its "self" cost), the largest first, divided by `per` (the requests counted); with
 * `--callees <part of a name>`, what the functions so named spend: their own instructions, and the
 * inclusive instructions of each function they call (what hangs under a handler).
 *
 *   valgrind --tool=callgrind --instr-atstart=no node --perf-basic-prof ... src/main.ts
 *   callgrind_control -i on <pid>; (requests); callgrind_control -d <pid>
 *   npx tsx bench/callgrind-functions.ts callgrind.out.<pid>.1 /tmp/perf-<pid>.map 1000 [top]
 *   npx tsx bench/callgrind-functions.ts ... 1000 20 --callees src/http/access-log.ts
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

interface MapEntry {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/** The entries of a perf map, in the order they were written (a later one wins an address). */
export function readPerfMap(text: string): MapEntry[] {
  const entries: MapEntry[] = [];
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/i.exec(line);
    if (m === null) continue;
    const start = parseInt(m[1]!, 16);
    entries.push({ start, end: start + parseInt(m[2]!, 16), name: m[3]! });
  }
  return entries;
}

/**
 * Calls `visit` with each cost line of a callgrind dump (`positions: line`, `events: Ir`): the
 * function it belongs to, the instructions, and for the inclusive line that follows a `calls=`,
 * the function called (undefined for the function's own instructions). Names are as callgrind
 * wrote them: V8's code is a bare address.
 */
function walk(dump: string, visit: (fn: string, cost: number, callee: string | undefined) => void): void {
  const names = new Map<string, string>();
  // callgrind writes a name once as "(id) name" and then as "(id)".
  const nameOf = (spec: string): string => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (m === null) return spec;
    if (m[2] !== undefined) names.set(m[1]!, m[2]);
    return names.get(m[1]!) ?? spec;
  };
  let fn = "?";
  let cfn = "?";
  let inclusiveNext = false;
  for (const line of dump.split("\n")) {
    if (line.startsWith("fn=")) {
      fn = nameOf(line.slice(3));
      inclusiveNext = false;
    } else if (line.startsWith("cfn=")) cfn = nameOf(line.slice(4));
    else if (line.startsWith("calls=")) inclusiveNext = true;
    else if (/^[0-9+*-]/.test(line)) {
      visit(fn, Number(line.trim().split(/\s+/)[1] ?? 0), inclusiveNext ? cfn : undefined);
      inclusiveNext = false;
    }
  }
}

// A name as printed: a bare address (V8's code) looked up in `map` (its names start "JS:", "RegExp:", ...).
function labeller(map: readonly MapEntry[]): (name: string) => string {
  const labels = new Map<string, string>();
  return (name) => {
    let label = labels.get(name);
    if (label === undefined) {
      label = /^0x[0-9a-f]+$/i.test(name) ? jsName(parseInt(name, 16), map) : name;
      labels.set(name, label);
    }
    return label;
  };
}

/**
 * Each function's own instructions in a callgrind dump: the cost lines under each `fn=`, without
 * the inclusive cost line that follows each `calls=`; V8's code named from `map`.
 */
export function selfCosts(dump: string, map: readonly MapEntry[]): Map<string, number> {
  const label = labeller(map);
  const costs = new Map<string, number>();
  walk(dump, (fn, cost, callee) => {
    if (callee !== undefined) return;
    const name = label(fn);
    costs.set(name, (costs.get(name) ?? 0) + cost);
  });
  return costs;
}

/**
 * Where the functions whose name contains `part` spend: their own instructions, and the inclusive
 * instructions of the calls they make, by function called (what hangs under a handler, say).
 */
export function calleeCosts(
  dump: string,
  map: readonly MapEntry[],
  part: string,
): { self: number; callees: Map<string, number> } {
  const label = labeller(map);
  let self = 0;
  const callees = new Map<string, number>();
  walk(dump, (fn, cost, callee) => {
    if (!label(fn).includes(part)) return;
    if (callee === undefined) self += cost;
    else callees.set(label(callee), (callees.get(label(callee)) ?? 0) + cost);
  });
  return { self, callees };
}

function jsName(address: number, map: readonly MapEntry[]): string {
  for (let i = map.length - 1; i >= 0; i--) {
    const entry = map[i]!;
    if (address >= entry.start && address < entry.end) return entry.name;
  }
  return `(V8 code at 0x${address.toString(16)})`;
}

// Run as a command (the test imports the functions only).
if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--callees");
  const part = at < 0 ? undefined : args.splice(at, 2)[1];
  const [dumpFile, mapFile, perText = "1", topText = "40"] = args;
  if (dumpFile === undefined || mapFile === undefined || (at >= 0 && part === undefined)) {
    process.stderr.write(
      "usage: callgrind-functions.ts <callgrind dump> <perf map> [per] [top] [--callees <part of a name>]\n",
    );
    process.exit(2);
  }
  const dump = readFileSync(dumpFile, "utf8");
  const map = readPerfMap(readFileSync(mapFile, "utf8"));
  const per = Number(perText);
  const print = (costs: Map<string, number>) => {
    for (const [name, cost] of [...costs].sort((a, b) => b[1] - a[1]).slice(0, Number(topText))) {
      process.stdout.write(`${String(Math.round(cost / per)).padStart(9)}  ${name}\n`);
    }
  };
  if (part === undefined) {
    const costs = selfCosts(dump, map);
    process.stdout.write(`${Math.round([...costs.values()].reduce((a, b) => a + b, 0) / per)} in all\n`);
    print(costs);
  } else {
    const { self, callees } = calleeCosts(dump, map, part);
    process.stdout.write(`${String(Math.round(self / per)).padStart(9)}  (own)\n`);
    print(callees);
  }
}
