/**
 * `src/accounts/account-registry.ts`: the server's view of the accounts, reread when DATA_DIR's file
 * changes, and caught up from where they are kept (Redis's copy, with REDIS_URL) for a session of
 * an account this process's copy does not hold yet.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAccount } from "../src/accounts/account-admin.ts";
import { ACCOUNTS_FILE } from "../src/accounts/account-file.ts";
import { createAccountRegistry } from "../src/accounts/account-registry.ts";
import { CATCH_UP_MS } from "../src/files/kept-document.ts";
import { clock, PASSWORD, TEST_SCRYPT } from "./dashboard-helpers.ts";
import { tempDir } from "./helpers.ts";
import { REDIS_SKIP, type TestVm, vmsOnRedis } from "./redis-helpers.ts";

test("an account made in DATA_DIR by the CLI is seen at once; a hand-damaged file keeps the last good view", async (t) => {
  const dir = tempDir(t);
  const errors: unknown[] = [];
  const accounts = createAccountRegistry({ dir, onError: (error) => errors.push(error) });
  assert.equal(accounts.get("ana"), undefined);
  await createAccount(dir, { name: "ana", password: PASSWORD, scrypt: TEST_SCRYPT });
  assert.equal(accounts.get("ana")?.name, "ana");

  writeFileSync(join(dir, ACCOUNTS_FILE), '{"format": 1, "accounts": [{"name": 3}]}\n');
  assert.equal(accounts.get("ana")?.name, "ana", "the last good view");
  await accounts.catchUp(); // the same damaged text, read from the same file
  assert.equal(accounts.get("ana")?.name, "ana");
  assert.equal(errors.length, 2);
  assert.match(String(errors[0]), /accounts\.json/);
});

test(
  "an account made on another VM is found once this one catches up with Redis, before its copy follows; catch-ups are at most one per 250 ms",
  { skip: REDIS_SKIP },
  async (t) => {
    const [vmA, vmB] = (await vmsOnRedis(t, 2)).vms as [TestVm, TestVm];
    const c = clock();
    const make = (name: string) =>
      createAccount(vmA.dir, { name, password: PASSWORD, scrypt: TEST_SCRYPT, documents: vmA.documents });
    const b = createAccountRegistry({ ...vmB, now: c.now });
    await make("ana");
    assert.equal(b.get("ana"), undefined, "B has not heard of it");
    await b.catchUp();
    assert.equal(b.get("ana")?.name, "ana", "found after the catch-up");

    await make("ben");
    await b.catchUp(); // within 250 ms of the last: the same read, not another
    assert.equal(b.get("ben"), undefined);
    c.advance(CATCH_UP_MS);
    await b.catchUp();
    assert.equal(b.get("ben")?.name, "ben");
    assert.equal(b.get("ana")?.name, "ana", "and the first is kept");
  },
);

test(
  "an accounts catch-up that cannot read Redis rejects, as unavailable, and the next one reads again at once",
  { skip: REDIS_SKIP },
  async (t) => {
    const { redis, connection, vms } = await vmsOnRedis(t, 1, { own: true });
    const vm = vms[0]!;
    const c = clock();
    const accounts = createAccountRegistry({ ...vm, now: c.now });
    await redis.stop();
    // The cookie may be of a live session: not found is not the answer, unavailable is (a 503 page).
    await assert.rejects(accounts.catchUp(), { name: "SharedStateUnavailable" });
    await redis.start();
    assert.ok(await connection.ready(10_000), "reconnected");
    await createAccount(vm.dir, {
      name: "ana",
      password: PASSWORD,
      scrypt: TEST_SCRYPT,
      documents: vm.documents,
    });
    // Within 250 ms of the failed one: read again, not its failure shared.
    await accounts.catchUp();
    assert.equal(accounts.get("ana")?.name, "ana");
  },
);
