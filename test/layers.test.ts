/**
 * The layers of `src/` (docs/development.md: "Layers"): every import points down or stays in its
 * folder, and no module imports itself through others. Read from the source text, type imports
 * included, so a new file is checked the day it is written.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = join(import.meta.dirname, "..", "src");

/**
 * Each folder's floor, lowest first: a module may import from its own folder and from lower
 * floors only. The files at the root of `src/` are named one by one: the clock and the version
 * are the ground, the wiring is the roof.
 */
const FLOORS: readonly (readonly string[])[] = [
  ["time.ts", "version.ts", "env-settings.ts", "listen.ts", "group-by.ts", "cache", "files"],
  ["periods.ts", "source", "limits"],
  ["store", "keys", "usage"],
  ["ingest", "records", "accounts", "sample"],
  ["features", "forecasts", "shared", "webhooks"],
  ["datasets"],
  ["pull"],
  ["metrics", "http"],
  ["dashboard", "docs", "mcp"],
  ["config.ts"],
  ["cluster"],
  ["service.ts"],
  ["server-process.ts"],
  ["main.ts"],
];

function floorOf(file: string): { part: string; floor: number } {
  const part = relative(SRC, file).split("/")[0]!;
  const floor = FLOORS.findIndex((names) => names.includes(part));
  if (floor < 0) throw new Error(`src/${part} has no floor in test/layers.test.ts: give it one`);
  return { part, floor };
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every module's relative imports (and re-exports), resolved to files. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, "utf8");
    const targets = [
      ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+["'](\.{1,2}\/[^"']+)["']/gms),
    ].map((m) => resolve(dirname(file), m[1]!));
    graph.set(file, targets);
  }
  return graph;
}

test("every import in src/ points down the layers or stays in its folder", () => {
  const graph = importGraph();
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    const from = floorOf(file);
    for (const target of targets) {
      const to = floorOf(target);
      if (to.part !== from.part && to.floor >= from.floor)
        upward.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
  assert.deepEqual(upward, [], "imports that point up or sideways");
  // The import reader finds what is there: the wiring imports a module of every folder.
  assert.ok(graph.get(join(SRC, "server-process.ts"))!.length > 10);
});

test("no module imports itself through others", () => {
  const graph = importGraph();
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

test("the floors are read as written: an upward import is found", () => {
  assert.equal(floorOf(join(SRC, "files", "lock-file.ts")).floor, 0);
  assert.ok(
    floorOf(join(SRC, "http", "app.ts")).floor > floorOf(join(SRC, "store", "reading-store.ts")).floor,
  );
  assert.throws(() => floorOf(join(SRC, "nowhere", "x.ts")), /has no floor/);
});
