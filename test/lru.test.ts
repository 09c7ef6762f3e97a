import { test } from "node:test";
import assert from "node:assert/strict";
import { Lru } from "../src/store/lru.ts";

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
