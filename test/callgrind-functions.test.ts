/**
 * `bench/callgrind-functions.ts`: a callgrind dump's own costs by function, and what a function's
 * calls cost, V8's code named from a perf map.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { calleeCosts, readPerfMap, selfCosts } from "../bench/callgrind-functions.ts";

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

test("a function's own instructions and its calls' inclusive ones, by function called; every compiled copy counts", () => {
  // 0x1010 and 0x2008 are two functions; the name part picks the access log's only.
  assert.deepEqual(calleeCosts(DUMP, readPerfMap(MAP), "access-log.ts"), {
    self: 360,
    callees: new Map([["Builtins_StringAdd_CheckNone", 250]]),
  });
  assert.deepEqual(calleeCosts(DUMP, readPerfMap(MAP), "send.ts"), { self: 40, callees: new Map() });
  assert.deepEqual(calleeCosts(DUMP, readPerfMap(MAP), "nowhere"), { self: 0, callees: new Map() });
});
