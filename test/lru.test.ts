import { test } from "node:test";
import assert from "node:assert/strict";
import { Lru } from "../src/cache/lru.ts";

test("the LRU keeps at most its bound, evicting the least recently used", () => {
  const lru = new Lru<string, number>(2);
  lru.set("a", 1);
  lru.set("b", 2);
  assert.equal(lru.get("a"), 1); // a is now the most recent
  lru.set("c", 3);
  assert.equal(lru.size, 2);
  assert.equal(lru.get("b"), undefined);
  assert.equal(lru.get("a"), 1);
  assert.equal(lru.get("c"), 3);
  lru.delete("a");
  assert.equal(lru.get("a"), undefined);
  lru.clear();
  assert.equal(lru.size, 0);
});

test("an LRU needs room for at least one entry", () => {
  assert.throws(() => new Lru(0), RangeError);
});

test("an LRU can be bounded by weight, and skips an entry heavier than the bound", () => {
  const lru = new Lru<string, string>(10, (v) => v.length);
  lru.set("a", "xxxx");
  lru.set("b", "xxxx");
  assert.equal(lru.weight, 8);
  lru.set("c", "xxxx"); // 12 > 10: a goes
  assert.equal(lru.get("a"), undefined);
  assert.equal(lru.weight, 8);
  lru.set("b", "x"); // replacing adjusts the weight
  assert.equal(lru.weight, 5);
  lru.set("huge", "x".repeat(11));
  assert.equal(lru.get("huge"), undefined);
  assert.equal(lru.size, 2);
});
