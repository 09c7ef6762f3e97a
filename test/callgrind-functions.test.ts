/** `bench/callgrind-functions.ts`: a callgrind dump's own costs by function, V8's code named from a perf map. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readPerfMap, selfCosts } from "../bench/callgrind-functions.ts";

// A dump as callgrind writes one: compressed names, a call whose inclusive cost must not count as
// the caller's own, and two functions that are only addresses (V8's code).
const DUMP = `# callgrind format
version: 1
positions: line
events: Ir
summary: 1000

ob=(1) /usr/bin/node
fl=(1) ???
fn=(10) Builtins_StringAdd_CheckNone
0 100

fn=(11) 0x0000000000001010
0 300
cfn=(10)
calls=2 0
0 250
fn=(12) 0x0000000000002008
0 40
fn=(11)
0 60
fn=(13) 0x0000000000009000
0 5
`;

const MAP = `1000 100 JS:*encodeLine file:///src/http/access-log.ts:1:1
2000 10 JS:*old file:///gone.ts:1:1
2000 20 JS:*send file:///src/http/send.ts:1:1
`;

test("own costs per function: calls' inclusive lines left out, addresses named by the latest map entry", () => {
  const costs = selfCosts(DUMP, readPerfMap(MAP));
  assert.deepEqual(Object.fromEntries(costs), {
    Builtins_StringAdd_CheckNone: 100,
    "JS:*encodeLine file:///src/http/access-log.ts:1:1": 360,
    "JS:*send file:///src/http/send.ts:1:1": 40,
    "(V8 code at 0x9000)": 5,
  });
});

test("a perf map's lines are read as start, size and name in hex; other lines are skipped", () => {
  assert.deepEqual(readPerfMap("10 f name with spaces\nnot a line\n"), [
    { start: 16, end: 31, name: "name with spaces" },
  ]);
});
