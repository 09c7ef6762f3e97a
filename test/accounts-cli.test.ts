import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readAccounts } from "../src/accounts/account-file.ts";
import { runAccountsCli } from "../src/accounts/accounts-cli.ts";
import { verifyPassword } from "../src/accounts/password.ts";
import { createKey } from "../src/keys/key-admin.ts";
import { tempDir } from "./helpers.ts";

async function cli(dir: string, argv: string[], stdin = "") {
  let stdout = "";
  let stderr = "";
  const code = await runAccountsCli(argv, {
    dir,
    io: {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      stdin: () => Promise.resolve(stdin),
    },
  });
  return { code, stdout, stderr };
}

test("create without a password prints a one-time password, and only it, as the last line of stdout", async (t) => {
  const dir = tempDir(t);
  const out = await cli(dir, ["create", "Quant-Desk"]);
  assert.equal(out.code, 0);
  assert.match(out.stdout, /^[A-Za-z0-9]{20}\n$/);
  assert.match(out.stderr, /Created an account "quant-desk"/);
  const [account] = readAccounts(dir);
  assert.equal(account!.name, "quant-desk", "names are lower-cased");
  assert.equal(account!.mustChangePassword, true);
  assert.equal(account!.admin, false);
  assert.equal(await verifyPassword(out.stdout.trim(), account!.password), true);
  const text = readFileSync(join(dir, "accounts.json"), "utf8");
  assert.ok(!text.includes(out.stdout.trim()), "the file holds only the hash");
  assert.equal(statSync(join(dir, "accounts.json")).mode & 0o777, 0o600);
});

test("create --admin --password-stdin takes the password from standard input, one trailing newline dropped", async (t) => {
  const dir = tempDir(t);
  const out = await cli(dir, ["create", "boss", "--admin", "--password-stdin"], "a long enough secret\n");
  assert.equal(out.code, 0);
  assert.equal(out.stdout, "boss\n");
  const [account] = readAccounts(dir);
  assert.equal(account!.admin, true);
  assert.equal(account!.mustChangePassword, false);
  assert.equal(await verifyPassword("a long enough secret", account!.password), true);
  const short = await cli(dir, ["create", "other", "--password-stdin"], "short\n");
  assert.equal(short.code, 1);
  assert.match(short.stderr, /at least 12 characters/);
  assert.equal(readAccounts(dir).length, 1, "nothing is created on an error");
});

test("a duplicate or malformed name is refused with a clear message", async (t) => {
  const dir = tempDir(t);
  await cli(dir, ["create", "analyst"]);
  const dup = await cli(dir, ["create", "ANALYST"]);
  assert.equal(dup.code, 1);
  assert.match(dup.stderr, /An account named "analyst" exists already/);
  const bad = await cli(dir, ["create", "no spaces"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /"no spaces" is not a valid account name/);
  assert.equal((await cli(dir, ["create"])).code, 2);
  assert.equal((await cli(dir, ["frobnicate"])).code, 2);
  assert.equal((await cli(dir, ["create", "x", "--bogus"])).code, 2);
});

test("list shows role, status, password state and active keys, as a table or JSON", async (t) => {
  const dir = tempDir(t);
  assert.match((await cli(dir, ["list"])).stderr, /No accounts yet/);
  await cli(dir, ["create", "boss", "--admin"]);
  await cli(dir, ["create", "analyst", "--password-stdin"], "a long enough secret");
  createKey(dir, { name: "laptop", account: "analyst" });
  createKey(dir, { name: "old", account: "analyst" });
  const table = await cli(dir, ["list"]);
  assert.match(table.stdout, /^NAME\s+ROLE\s+STATUS\s+PASSWORD\s+CREATED\s+ACTIVE KEYS$/m);
  assert.match(table.stdout, /^boss\s+admin\s+active\s+one-time\s+\S+Z\s+0$/m);
  assert.match(table.stdout, /^analyst\s+user\s+active\s+set\s+\S+Z\s+2$/m);
  const json = JSON.parse((await cli(dir, ["list", "--json"])).stdout);
  assert.deepEqual(
    json.map((a: Record<string, unknown>) => [a.name, a.role, a.active_keys]),
    [
      ["boss", "admin", 0],
      ["analyst", "user", 2],
    ],
  );
});

test("reset-password gives a new one-time password and ends sessions; disable and enable flip the account", async (t) => {
  const dir = tempDir(t);
  await cli(dir, ["create", "analyst", "--password-stdin"], "a long enough secret");
  const before = readAccounts(dir)[0]!;
  await new Promise((resolve) => setTimeout(resolve, 5));
  const reset = await cli(dir, ["reset-password", "analyst"]);
  assert.equal(reset.code, 0);
  const after = readAccounts(dir)[0]!;
  assert.equal(after.mustChangePassword, true);
  assert.equal(await verifyPassword(reset.stdout.trim(), after.password), true);
  assert.ok(after.sessionsValidAfter > before.sessionsValidAfter, "sessions begun before the reset are over");

  assert.equal((await cli(dir, ["disable", "analyst"])).code, 0);
  assert.notEqual(readAccounts(dir)[0]!.disabled, null);
  assert.equal((await cli(dir, ["enable", "analyst"])).code, 0);
  assert.equal(readAccounts(dir)[0]!.disabled, null);
  const missing = await cli(dir, ["disable", "ghost"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /No account is named "ghost"/);
});

test("a damaged account file is refused whole, naming the file, and left as it was", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "accounts.json"), '{"format": 1, "accounts": [');
  const out = await cli(dir, ["create", "analyst"]);
  assert.equal(out.code, 1);
  assert.match(out.stderr, /Cannot parse "accounts.json"/);
  assert.equal(readFileSync(join(dir, "accounts.json"), "utf8"), '{"format": 1, "accounts": [');
  writeFileSync(join(dir, "accounts.json"), '{"format": 1, "accounts": [{"name": "x"}]}');
  assert.match((await cli(dir, ["list"])).stderr, /Cannot read "accounts.json": accounts.0.admin/);
});
