import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  decoyHash,
  generatePassword,
  hashPassword,
  PasswordHashSchema,
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
  const cheap = await hashPassword("correct horse battery", { N: 1024, r: 8, p: 1 });
  assert.deepEqual({ N: cheap.N, r: cheap.r, p: cheap.p }, { N: 1024, r: 8, p: 1 });
  assert.equal(await verifyPassword("correct horse battery", cheap), true);
  assert.equal(await verifyPassword("correct horse batterY", cheap), false);
  const stored = await hashPassword("correct horse battery");
  const weaker = { ...stored, N: 1024 };
  assert.equal(
    await verifyPassword("correct horse battery", weaker),
    false,
    "the parameters are part of the hash",
  );
});

test("the decoy for unknown usernames is a stored form with the current parameters that nothing matches", async () => {
  const decoy = decoyHash();
  assert.deepEqual(v.parse(PasswordHashSchema, decoy), decoy);
  assert.deepEqual({ N: decoy.N, r: decoy.r, p: decoy.p }, SCRYPT_PARAMS, "checked at a real hash's cost");
  assert.equal(
    Buffer.from(decoy.hash, "base64").length,
    Buffer.from((await hashPassword("x")).hash, "base64").length,
  );
  for (const guess of ["", "correct horse battery"]) assert.equal(await verifyPassword(guess, decoy), false);
  assert.notEqual(decoyHash().hash, decoy.hash, "random each time");
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
