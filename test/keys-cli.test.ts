import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runKeysCli } from "../src/keys/keys-cli.ts";
import { readKeys } from "../src/keys/key-file.ts";
import { tempDir } from "./helpers.ts";

function cli(dir: string, ...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = runKeysCli(argv, {
    dir,
    env: {},
    accounts: () => ["admin", "quant-desk", "one", "two"],
    io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
  });
  return { code, stdout, stderr };
}

test("create prints the full key, and only the key, as the last line of stdout", (t) => {
  const dir = tempDir(t);
  const out = cli(dir, "create", "--name", "research laptop", "--account", "quant-desk");
  assert.equal(out.code, 0);
  assert.match(out.stdout, /^gds_[0-9A-Za-z]{49}\n$/);
  const key = out.stdout.trim();
  assert.match(
    out.stderr,
    /Created key key_[0-9a-f]{12} \(gds_.{8}…\) for account "quant-desk", name "research laptop"/,
  );
  assert.ok(!out.stderr.includes(key), "details never repeat the key");
  const [record] = readKeys(dir);
  assert.equal(record!.account, "quant-desk");
  assert.equal(record!.prefix, key.slice(0, 12));
  assert.equal(record!.revoked, null);
});

test("the store file holds no full key and is readable by its owner only", (t) => {
  const dir = tempDir(t);
  const keys = [
    cli(dir, "create", "--name", "a").stdout.trim(),
    cli(dir, "create", "--name", "b").stdout.trim(),
  ];
  const text = readFileSync(join(dir, "keys.json"), "utf8");
  for (const key of keys) {
    assert.ok(!text.includes(key));
    assert.ok(!text.includes(key.slice(12)), "not even the secret part");
  }
  assert.match(text, /"hash": "sha256:[0-9a-f]{64}"/);
  assert.equal(statSync(join(dir, "keys.json")).mode & 0o777, 0o600);
});

test("list shows every column and never the full key; --json and --account work", (t) => {
  const dir = tempDir(t);
  const a = cli(dir, "create", "--name", "alpha", "--account", "one", "--limit", "features=50").stdout.trim();
  cli(dir, "create", "--name", "beta", "--account", "two");
  const out = cli(dir, "list");
  assert.equal(out.code, 0);
  assert.match(out.stdout, /^ID +ACCOUNT +NAME +PREFIX +CREATED +LAST USED +STATUS +LIMITS\/60s/);
  assert.match(
    out.stdout,
    /one +alpha +gds_\S{8} +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +never +active +normalized_data=10 features=50\*/,
  );
  assert.ok(!out.stdout.includes(a));
  const json = JSON.parse(cli(dir, "list", "--json", "--account", "two").stdout);
  assert.equal(json.length, 1);
  assert.deepEqual(Object.keys(json[0]), [
    "id",
    "account",
    "name",
    "prefix",
    "created",
    "last_used",
    "status",
    "revoked",
    "limits",
  ]);
  assert.equal(json[0].name, "beta");
  assert.equal(json[0].status, "active");
  assert.equal(json[0].last_used, null);
});

test("an empty store lists nothing and says how to begin", (t) => {
  const out = cli(tempDir(t), "list");
  assert.equal(out.code, 0);
  assert.equal(out.stdout, "");
  assert.match(out.stderr, /No keys yet/);
});

test("revoke by id or by prefix; an unknown or ambiguous reference is an error", (t) => {
  const dir = tempDir(t);
  cli(dir, "create", "--name", "a");
  cli(dir, "create", "--name", "b");
  const [a, b] = readKeys(dir);
  assert.equal(cli(dir, "revoke", a!.id).code, 0);
  const byPrefix = cli(dir, "revoke", b!.prefix);
  assert.equal(byPrefix.code, 0);
  assert.match(byPrefix.stderr, /Revoked key/);
  assert.ok(readKeys(dir).every((k) => k.revoked !== null));
  assert.match(cli(dir, "revoke", a!.id).stderr, /already revoked/);
  const missing = cli(dir, "revoke", "gds_nothing");
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /No key has the id or prefix "gds_nothing"/);
  const ambiguous = cli(dir, "revoke", "gds_");
  assert.equal(ambiguous.code, 1);
});

test("limit sets and removes a key's own limits", (t) => {
  const dir = tempDir(t);
  cli(dir, "create", "--name", "a");
  const [a] = readKeys(dir);
  assert.equal(cli(dir, "limit", a!.id, "normalized_data=1000", "features=20").code, 0);
  assert.deepEqual(readKeys(dir)[0]!.limits, { normalized_data: 1000, features: 20 });
  assert.equal(cli(dir, "limit", a!.prefix, "features=default").code, 0);
  assert.deepEqual(readKeys(dir)[0]!.limits, { normalized_data: 1000 });
});

test("bad arguments print usage and exit non-zero", (t) => {
  const dir = tempDir(t);
  const cases: [string[], RegExp][] = [
    [[], /a command is required/],
    [["frobnicate"], /unknown command "frobnicate"/],
    [["create"], /--name is required/],
    [["create", "--name", "  "], /--name must not be empty/],
    [["create", "--name", "x", "--limit", "features=lots"], /--limit "features=lots" is not SCOPE=N/],
    [["create", "--name", "x", "--limit", "bogus=3"], /"bogus" is not a scope/],
    [["create", "--name", "x", "--colour", "red"], /Unknown option '--colour'/],
    [["revoke"], /revoke takes one ID_OR_PREFIX/],
    [["limit", "key_x"], /limit takes ID_OR_PREFIX and at least one SCOPE=N/],
  ];
  for (const [argv, message] of cases) {
    const out = cli(dir, ...argv);
    assert.equal(out.code, 2, argv.join(" "));
    assert.match(out.stderr, message, argv.join(" "));
    assert.match(out.stderr, /Usage: npm run --silent keys -- COMMAND/);
    assert.equal(out.stdout, "");
  }
  assert.deepEqual(readKeys(dir), [], "nothing was created");
  assert.match(cli(dir, "help").stdout, /Commands:/);
});

test("an unreadable key store is reported, not overwritten", (t) => {
  const dir = tempDir(t);
  const broken = '{"format": 1, "keys": [ {"id": 1} ]}';
  writeFileSync(join(dir, "keys.json"), broken);
  assert.throws(() => cli(dir, "create", "--name", "x"), /Cannot read "keys.json": keys.0.id/);
  assert.equal(readFileSync(join(dir, "keys.json"), "utf8"), broken);
});

test("create takes only an account that exists: anything else is refused, naming how to make it", (t) => {
  const dir = tempDir(t);
  for (const account of ["Victim", "<svg/onload=alert(1)>", "nobody"]) {
    const out = cli(dir, "create", "--name", "x", "--account", account);
    assert.equal(out.code, 1, account);
    assert.equal(out.stdout, "", "no key is printed");
    assert.match(
      out.stderr,
      /No account is named ".*", so no one could see or revoke its key: create it first \(npm run --silent accounts -- create .*\), or name one of: admin, quant-desk, one, two/,
    );
  }
  assert.deepEqual(readKeys(dir), [], "no key was made");
  const admin = cli(dir, "create", "--name", "default account");
  assert.equal(admin.code, 0, admin.stderr);
  assert.match(admin.stderr, /for account "admin"/);
});
