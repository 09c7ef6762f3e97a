import { test } from "node:test";
import assert from "node:assert/strict";
import { generateKey, hashKey, KEY_SHAPE, keyPrefix, looksLikeKey } from "../src/keys/api-key.ts";
import { updateKeys } from "../src/keys/key-file.ts";
import { startServer, tempDir } from "./helpers.ts";

test("a key is gds_, 43 random base62 characters and a 6-character checksum, and every key differs", () => {
  const keys = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const key = generateKey();
    assert.match(key, KEY_SHAPE);
    assert.equal(looksLikeKey(key), true);
    keys.add(key);
  }
  assert.equal(keys.size, 500);
});

test("any one mistyped character fails the checksum, so it is refused without a lookup", () => {
  const key = generateKey();
  for (let at = 4; at < key.length; at++) {
    const typo = key.slice(0, at) + (key[at] === "x" ? "y" : "x") + key.slice(at + 1);
    assert.equal(looksLikeKey(typo), false, `a typo at ${at}`);
  }
  assert.equal(looksLikeKey(key.slice(0, -1)), false, "one character short");
  assert.equal(looksLikeKey(key.replace("gds_", "gdx_")), false);
});

test("keys made before the checksum keep working", async (t) => {
  const dir = tempDir(t);
  const legacy = "gds_" + "Ab3_-".repeat(8) + "xyz";
  assert.equal(legacy.length, 47);
  assert.equal(looksLikeKey(legacy), true);
  const server = await startServer(t, dir);
  updateKeys(dir, (keys) =>
    keys.push({
      id: "key_0123456789ab",
      account: "old",
      name: "from 2025",
      prefix: keyPrefix(legacy),
      hash: hashKey(legacy),
      created: "2025-01-01T00:00:00.000Z",
      revoked: null,
      limits: {},
    }),
  );
  const res = await server.raw("/api/v1/datasets", { headers: { "X-API-KEY": legacy } });
  assert.equal(res.status, 200);
});
