import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { redisDocumentStore, sharedDocuments } from "../src/shared/shared-documents.ts";
import { COUNTS_FILE, createRequestCounter, lastDays } from "../src/usage/request-counts.ts";
import { tempDir } from "./helpers.ts";
import { quickAndPatient, REDIS_SKIP } from "./redis-helpers.ts";

const DAY = 86_400_000;

function clock() {
  let t = Date.parse("2026-03-10T12:00:00Z");
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

test("counts per key, scope and day are summed over the keys asked for, pending and stored alike", async (t) => {
  const dir = tempDir(t);
  const c = clock();
  const counter = createRequestCounter({ dir, now: c.now });
  t.after(() => counter.close());
  counter.count("key_a", "normalized_data", true);
  counter.count("key_a", "normalized_data", false);
  counter.count("key_b", "features", true);
  counter.count("key_c", "features", true);
  await counter.flush();
  c.advance(DAY);
  counter.count("key_a", "normalized_data", true);
  const totals = counter.totals(new Set(["key_a", "key_b"]), lastDays(c.now(), 2));
  assert.deepEqual(totals, {
    "2026-03-10": { normalized_data: { allowed: 1, throttled: 1 }, features: { allowed: 1, throttled: 0 } },
    "2026-03-11": { normalized_data: { allowed: 1, throttled: 0 } },
  });
});

test("two processes' counts are added, not overwritten, and days past 35 are dropped", async (t) => {
  const dir = tempDir(t);
  const c = clock();
  const one = createRequestCounter({ dir, now: c.now });
  const two = createRequestCounter({ dir, now: c.now });
  t.after(() => (one.close(), two.close()));
  one.count("key_a", "metadata", true);
  two.count("key_a", "metadata", true);
  two.count("key_a", "metadata", true);
  await Promise.all([one.flush(), two.flush()]);
  const fresh = createRequestCounter({ dir, now: c.now });
  t.after(() => fresh.close());
  assert.deepEqual(fresh.totals(new Set(["key_a"]), ["2026-03-10"]), {
    "2026-03-10": { metadata: { allowed: 3, throttled: 0 } },
  });
  c.advance(35 * DAY);
  one.count("key_a", "metadata", true);
  await one.flush();
  const stored = JSON.parse(readFileSync(join(dir, "request-counts.json"), "utf8"));
  assert.deepEqual(Object.keys(stored.days), ["2026-04-14"]);
});

test("a damaged counts file is reported and replaced; the counts of a failed write are kept for the next", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "request-counts.json"), "garbage");
  const errors: unknown[] = [];
  const counter = createRequestCounter({ dir, onError: (e) => errors.push(e) });
  t.after(() => counter.close());
  counter.count("key_a", "features", true);
  await counter.flush();
  assert.ok(errors.length >= 1);
  const today = lastDays(Date.now(), 1);
  assert.equal(counter.totals(new Set(["key_a"]), today)[today[0]!]!.features!.allowed, 1);

  // A store whose every write fails, as a full disk's does.
  const full = Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
  const other = tempDir(t);
  const missing = createRequestCounter({
    dir: other,
    documents: { dir: other, update: () => Promise.reject(full), read: () => Promise.resolve(null) },
    onError: (e) => errors.push(e),
  });
  t.after(() => missing.close());
  missing.count("key_a", "features", true);
  const before = errors.length;
  await assert.rejects(missing.flush(), { code: "ENOSPC" }, "a stop must know its counts were not written");
  assert.equal(errors.length, before + 1, "and the failure is reported");
  assert.equal(missing.totals(new Set(["key_a"]), today)[today[0]!]!.features!.allowed, 1, "kept in memory");
});

test("allowed requests per key add every scope over the days asked for, stored and pending alike", async (t) => {
  const dir = tempDir(t);
  const c = clock();
  const counter = createRequestCounter({ dir, now: c.now });
  t.after(() => counter.close());
  counter.count("key_a", "normalized_data", true);
  counter.count("key_a", "features", true);
  counter.count("key_a", "features", false);
  await counter.flush();
  counter.count("key_b", "metadata", true);
  c.advance(DAY);
  counter.count("key_a", "metadata", true);
  assert.deepEqual([...counter.allowedByKey(lastDays(c.now(), 2))].sort(), [
    ["key_a", 3],
    ["key_b", 1],
  ]);
  assert.deepEqual([...counter.allowedByKey(lastDays(c.now(), 1))], [["key_a", 1]]);
});

test(
  "with Redis, a flush whose write ran after its answer timed out is not added twice",
  { skip: REDIS_SKIP },
  async (t) => {
    const { quick, patient, busy } = await quickAndPatient(t);
    const dir = tempDir(t);
    const shared = sharedDocuments(quick);
    const errors: unknown[] = [];
    const c = clock();
    const documents = redisDocumentStore(shared, dir);
    const counter = createRequestCounter({ dir, now: c.now, documents, onError: (e) => errors.push(e) });
    t.after(() => counter.close());
    const inRedis = sharedDocuments(patient);
    const allowed = async () => {
      const text = (await inRedis.read(COUNTS_FILE)).text ?? '{"days":{}}';
      const { days } = JSON.parse(text) as { days: Record<string, Record<string, Record<string, number[]>>> };
      return days["2026-03-10"]?.key_a?.normalized_data?.[0];
    };
    for (let i = 0; i < 3; i++) counter.count("key_a", "normalized_data", true);
    await counter.flush();
    assert.equal(await allowed(), 3);

    for (let i = 0; i < 2; i++) counter.count("key_a", "normalized_data", true);
    // Writes wait 2 s: the counter reads, and its compare-and-set runs after it gave up on the answer.
    await busy("WRITE");
    await assert.rejects(counter.flush(), /out of reach/);
    await patient.client.set("pause-over", "1"); // a write: answered once the pause is over
    assert.equal(await allowed(), 5, "the late write was applied");
    await counter.flush(); // the batch again, under its name
    assert.equal(await allowed(), 5, "and not added a second time");
    assert.equal(
      counter.totals(new Set(["key_a"]), ["2026-03-10"])["2026-03-10"]!.normalized_data!.allowed,
      5,
    );
    assert.equal(errors.length, 1);
  },
);
