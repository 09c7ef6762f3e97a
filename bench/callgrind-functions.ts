/**
 * Which functions a callgrind count went to, JavaScript included (docs/performance.md, "Where the
 * instructions went"). Callgrind names native functions itself, but code V8 compiled at run time is
 * only an address to it; `node --perf-basic-prof` writes where V8 put each compiled function
 * (`/tmp/perf-<pid>.map`: address, size and name in hex, one a line, later lines for reused
 * addresses). This reads a callgrind dump and that map and prints each function's own
 * instructions (its "self" cost), the largest first, divided by `per` (the requests counted).
 *
 *   valgrind --tool=callgrind --instr-atstart=no node --perf-basic-prof ... src/main.ts
 *   callgrind_control -i on <pid>; (requests); callgrind_control -d <pid>
 *   npx tsx bench/callgrind-functions.ts callgrind.out.<pid>.1 /tmp/perf-<pid>.map 1000 [top]
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
 * Each function's own instructions in a callgrind dump (`positions: line`, `events: Ir`): the cost
 * lines under each `fn=`, without the inclusive cost line that follows each `calls=`. Names that
 * are bare addresses (V8's code) are looked up in `map` (its names start "JS:", "RegExp:", ...).
 */
export function selfCosts(dump: string, map: readonly MapEntry[]): Map<string, number> {
  const names = new Map<string, string>();
  // callgrind writes a name once as "(id) name" and then as "(id)".
  const nameOf = (spec: string): string => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (m === null) return spec;
    if (m[2] !== undefined) names.set(m[1]!, m[2]);
    return names.get(m[1]!) ?? spec;
  };
  const byFunction = new Map<string, number>();
  let fn = "?";
  let inclusiveNext = false;
  for (const line of dump.split("\n")) {
    if (line.startsWith("fn=")) {
      fn = nameOf(line.slice(3));
      inclusiveNext = false;
    } else if (line.startsWith("cfn=")) nameOf(line.slice(4));
    else if (line.startsWith("calls=")) inclusiveNext = true;
    else if (/^[0-9+*-]/.test(line)) {
      if (inclusiveNext) inclusiveNext = false;
      else byFunction.set(fn, (byFunction.get(fn) ?? 0) + Number(line.trim().split(/\s+/)[1] ?? 0));
    }
  }
  const labelled = new Map<string, number>();
  for (const [name, cost] of byFunction) {
    const label = /^0x[0-9a-f]+$/i.test(name) ? jsName(parseInt(name, 16), map) : name;
    labelled.set(label, (labelled.get(label) ?? 0) + cost);
  }
  return labelled;
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
  const [dumpFile, mapFile, perText = "1", topText = "40"] = process.argv.slice(2);
  if (dumpFile === undefined || mapFile === undefined) {
    process.stderr.write("usage: callgrind-functions.ts <callgrind dump> <perf map> [per] [top]\n");
    process.exit(2);
  }
  const costs = selfCosts(readFileSync(dumpFile, "utf8"), readPerfMap(readFileSync(mapFile, "utf8")));
  const per = Number(perText);
  const total = [...costs.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`${Math.round(total / per)} in all\n`);
  for (const [name, cost] of [...costs].sort((a, b) => b[1] - a[1]).slice(0, Number(topText))) {
    process.stdout.write(`${String(Math.round(cost / per)).padStart(9)}  ${name}\n`);
  }
}
