import { test } from "node:test";
import assert from "node:assert/strict";
import {
  generatePassword,
  hashPassword,
  passwordProblem,
  SCRYPT_PARAMS,
  verifyPassword,
} from "../src/accounts/password.ts";

test("a hashed password verifies, another does not, and the stored form carries its salt and parameters", async () => {
  const stored = await hashPassword("correct horse battery");
  assert.equal(stored.algorithm, "scrypt");
  assert.deepEqual({ N: stored.N, r: stored.r, p: stored.p }, SCRYPT_PARAMS);
  assert.equal(Buffer.from(stored.salt, "base64").length, 16);
  assert.equal(await verifyPassword("correct horse battery", stored), true);
  assert.equal(await verifyPassword("correct horse batterY", stored), false);
  assert.equal(await verifyPassword("", stored), false);
  const again = await hashPassword("correct horse battery");
  assert.notEqual(again.salt, stored.salt, "a fresh salt per password");
  assert.notEqual(again.hash, stored.hash);
});

test("a hash made with other parameters still verifies: they are read from the stored form", async () => {
  const stored = await hashPassword("correct horse battery");
  const weaker = { ...stored, N: 1024 };
  assert.equal(
    await verifyPassword("correct horse battery", weaker),
    false,
    "the parameters are part of the hash",
  );
});

test("passwords need 12 characters, at most 256, and no surrounding spaces", () => {
  assert.match(passwordProblem("elevenchars")!, /at least 12 characters/);
  assert.equal(passwordProblem("twelve chars"), undefined);
  assert.equal(passwordProblem("ünïcödé pässwörd"), undefined);
  assert.match(passwordProblem("x".repeat(257))!, /at most 256/);
  assert.match(passwordProblem(" leading space")!, /space/);
});

test("generated one-time passwords are 20 characters without look-alikes, and differ", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const p = generatePassword();
    assert.match(p, /^[a-km-zA-HJ-NP-Z2-9]{20}$/);
    seen.add(p);
  }
  assert.equal(seen.size, 200);
});
