/**
 * Signed webhooks (src/webhooks/): deliveries to a loopback receiver, each verified with the
 * `standardwebhooks` package (an implementation this project does not write); retries with one
 * `webhook-id`; 410, Retry-After, private addresses; the pull's events; the CLI; and a server
 * killed with SIGKILL between two attempts, whose delivery arrives after the restart.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileWebhookStores } from "../src/webhooks/webhook-stores.ts";
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { pullPortal } from "../src/pull/pull.ts";
import { portalFile } from "../src/pull/portal-files.ts";
import { samplePeriodFiles } from "../src/sample/sample-periods.ts";
import { sampleHours } from "../src/sample/seed-sample-periods.ts";
import { Deliverer } from "../src/webhooks/deliverer.ts";
import { runWebhooksCli } from "../src/webhooks/webhooks-cli.ts";
import { checkDestination } from "../src/webhooks/destination.ts";
import { enqueue, pendingDeliveries, writePending } from "../src/webhooks/outbox.ts";
import { deliveryLog } from "../src/webhooks/delivery-log.ts";
import { signatures } from "../src/webhooks/signature.ts";
import { readSubscriptions, rotateSecret, STRESS_BAND_NAMES } from "../src/webhooks/subscriptions.ts";
import { STRESS_BANDS } from "../src/features/stress-formula.ts";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { gridEvents } from "../src/pull/grid-events.ts";
import { formatInstant } from "../src/time.ts";
import {
  ingestTexts,
  REAL_DATA_DIR,
  skipUnless,
  startServerProcess,
  tempDir,
  waitFor,
  subscribe,
} from "./helpers.ts";
import { startPortal } from "./portal-stand-in.ts";
import { receiver, verify } from "./webhook-receiver.ts";

const LOOPBACK = { allowPrivate: true, allowHttp: true };
const ROOT = join(import.meta.dirname, "..");

test("a signature standardwebhooks verifies; a rotated secret signs beside the new one for a day", async (t) => {
  const dir = tempDir(t);
  const { subscription, secret } = await subscribe(dir, {
    account: "a",
    url: "https://example.org/h",
    events: ["data.published"],
  });
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.doesNotMatch(
    JSON.stringify(readSubscriptions(dir)),
    new RegExp(secret.slice(6, 30).replace(/[+/]/g, ".")),
    "sealed at rest",
  );
  const body = JSON.stringify({ type: "webhook.test", timestamp: new Date().toISOString(), data: {} });
  const now = Math.floor(Date.now() / 1000);
  const headers = {
    "webhook-id": "msg_1",
    "webhook-timestamp": String(now),
    "webhook-signature": signatures([secret], "msg_1", now, body),
  };
  assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  assert.throws(() => new Webhook(secret).verify(body.replace("test", "tesT"), headers), /signature/i);
  const fresh = await rotateSecret(
    fileWebhookStores(dir).documents,
    await fileWebhookStores(dir).sealingKeys(),
    subscription.id,
  );
  const both = signatures([secret, fresh], "msg_1", now, body);
  for (const key of [secret, fresh]) new Webhook(key).verify(body, { ...headers, "webhook-signature": both });
});

test("an ended delivery a cut-short save left in the outbox is put away by the next round, not sent again", async (t) => {
  const dir = tempDir(t);
  const hook = await receiver(t, [204]);
  await subscribe(dir, { account: "a", url: hook.url, events: ["data.published"] });
  const [made] = enqueue(dir, { type: "data.published", data: { dataset: "generation.mix", url: "/x" } });
  // The first of a save's two steps, as a kill (or a full disk) between them leaves it: the outbox
  // file says delivered, and it was not yet moved into the log.
  writePending(dir, { ...made!, state: "delivered", attempts: [{ at: made!.next_at, status: 204, ms: 3 }] });
  const webhooks = fileWebhookStores(dir);
  assert.equal(await new Deliverer({ webhooks, rules: LOOPBACK }).deliverDue(), 0);
  assert.equal(hook.received.length, 0, "not sent again");
  assert.deepEqual(
    deliveryLog(dir).map((d) => [d.id, d.state]),
    [[made!.id, "delivered"]],
  );
  assert.deepEqual(await webhooks.outbox.counts(), { pending: 0, delivered: 1, failed: 0, gone: 0 });
});

test("delivered with one webhook-id through 500, 500 and 200; 410 disables; Retry-After is honoured", async (t) => {
  const dir = tempDir(t);
  const flaky = await receiver(t, [500, 500, 200]);
  const { subscription, secret } = await subscribe(dir, {
    account: "a",
    url: flaky.url,
    events: ["data.published"],
  });
  // The deliverer's clock starts now: a receiver refuses a timestamp more than 5 minutes off.
  const start = Math.floor(Date.now() / 1000) * 1000;
  let now = start;
  const deliverer = new Deliverer({
    webhooks: fileWebhookStores(dir),
    rules: LOOPBACK,
    now: () => now,
    scheduleMs: [0, 5_000, 60_000],
  });
  const [made] = enqueue(
    dir,
    { type: "data.published", data: { dataset: "generation.mix", url: "/api/v1/generation/mix" } },
    { now },
  );
  assert.equal(await deliverer.deliverDue(), 1);
  assert.equal(await deliverer.deliverDue(), 0, "the retry waits its 5 s");
  now += 5_500; // past the wait and its jitter (at most 10%)
  assert.equal(await deliverer.deliverDue(), 1);
  assert.equal(readSubscriptions(dir)[0]!.failing_since, new Date(start).toISOString());
  now += 66_000;
  assert.equal(await deliverer.deliverDue(), 1);
  assert.equal(flaky.received.length, 3);
  // Never a kept-alive connection, which the receiver may close just as it is reused.
  assert.equal(flaky.connections.opened, 3, "each attempt on a connection of its own");
  assert.deepEqual(new Set(flaky.received.map((r) => r.headers["webhook-id"])), new Set([made!.id]));
  for (const r of flaky.received) assert.equal(verify(secret, r).type, "data.published");
  const [logged] = deliveryLog(dir);
  assert.equal(logged!.state, "delivered");
  assert.deepEqual(
    logged!.attempts.map((a) => a.status),
    [500, 500, 200],
  );
  assert.equal(readSubscriptions(dir)[0]!.failing_since, undefined, "healthy again");

  const gone = await receiver(t, [410]);
  const second = await subscribe(dir, { account: "a", url: gone.url, events: ["forecast.issued"] });
  enqueue(dir, { type: "forecast.issued", data: {} }, { now });
  await deliverer.deliverDue();
  const disabled = readSubscriptions(dir).find((s) => s.id === second.subscription.id)!;
  assert.equal(disabled.enabled, false);
  assert.match(disabled.paused!.why, /410/);
  enqueue(dir, { type: "forecast.issued", data: {} }, { now });
  assert.equal(pendingDeliveries(dir).length, 0, "a disabled subscription gets no event");

  const busy = await receiver(t, [429, 200], { "Retry-After": "120" });
  await subscribe(dir, { account: "a", url: busy.url, events: ["source.resumed"] });
  enqueue(dir, { type: "source.resumed", data: { file: "x.csv" } }, { now });
  await deliverer.deliverDue();
  assert.equal(Date.parse(pendingDeliveries(dir)[0]!.next_at), now + 120_000, "when the receiver said");
  assert.equal(subscription.enabled, true);

  // An HTTP-date asks as much: two minutes after the receiver's clock (this machine's), not the
  // retry schedule's 5 s.
  const until = new Date(Math.ceil(Date.now() / 1000) * 1000 + 120_000).toUTCString();
  const dated = await receiver(t, [503, 200], { "Retry-After": until });
  const third = await subscribe(dir, { account: "a", url: dated.url, events: ["source.late"] });
  enqueue(dir, { type: "source.late", data: { file: "x.csv" } }, { now });
  await deliverer.deliverDue();
  const waiting = pendingDeliveries(dir).find((d) => d.subscription === third.subscription.id)!;
  const asked = Date.parse(waiting.next_at) - now;
  assert.ok(asked > 60_000 && asked <= 121_000, `waits until ${until}: ${asked} ms`);
});

test("private and plain-http destinations are refused unless the operator allows them", async (t) => {
  const strict = { allowPrivate: false, allowHttp: false };
  await assert.rejects(checkDestination("http://example.org/h", strict), /http: is refused/);
  await assert.rejects(
    checkDestination("https://127.0.0.1/h", strict),
    /127\.0\.0\.1 is not a public address/,
  );
  await assert.rejects(checkDestination("https://localhost/h", strict), /localhost is refused/);
  await assert.rejects(checkDestination("https://user:pw@example.org/h", strict), /no credentials/);
  // Every range and encoding: webhooks-hostile.test.ts.
  // At delivery too: a subscription made while allowed is refused once the rules forbid it.
  const dir = tempDir(t);
  const open = await receiver(t, [200]);
  await subscribe(dir, { account: "a", url: open.url, events: ["webhook.test"] });
  enqueue(dir, { type: "webhook.test", data: {} });
  await new Deliverer({
    webhooks: fileWebhookStores(dir),
    rules: strict,
    scheduleMs: [0, 60_000],
  }).deliverDue();
  assert.equal(open.received.length, 0);
  assert.match(pendingDeliveries(dir)[0]!.attempts[0]!.error!, /http: is refused/);
  const cli = spawnSync(
    process.execPath,
    ["--import", "tsx", "scripts/webhooks.ts", "create", "--account", "a", "--url", open.url],
    {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir, WEBHOOK_ALLOW_HTTP: "1" },
      encoding: "utf8",
    },
  );
  assert.equal(cli.status, 1);
  assert.match(cli.stderr, /^Refused: 127\.0\.0\.1 is not a public address/);
});

test("a pull that publishes new weeks makes one data.published event per dataset, with its API URL", async (t) => {
  const dir = tempDir(t);
  const hook = await receiver(t, [200]);
  // By name: the delivery connects to the address its name resolved to and was checked.
  const { secret } = await subscribe(dir, {
    account: "a",
    url: hook.url.replace("127.0.0.1", "localhost"),
    events: ["data.published"],
    datasets: ["grid.availability_weekly"],
  });
  await subscribe(dir, { account: "b", url: hook.url, events: ["forecast.issued"] });
  const files = samplePeriodFiles(sampleHours({ lastHour: Date.parse("2026-06-17T21:00:00Z"), days: 120 }));
  const stand = await startPortal(t);
  stand.publish("Weekly_unplanned_outages.csv", files["Weekly_unplanned_outages.csv"]!, {
    folder: "2026/06",
  });
  const at = Date.parse("2026-06-19T04:09:00Z");
  const policy = { timeoutMs: 2000, attempts: 2, backoffMs: 5, maxBackoffMs: 20 };
  const result = await pullPortal({
    dir,
    root: stand.root,
    files: [portalFile("Weekly_unplanned_outages.csv")!],
    policy,
    now: () => at,
  });
  assert.equal(result.ok, true, JSON.stringify(result.files));
  const pending = pendingDeliveries(dir);
  assert.equal(pending.length, 1, "one subscriber wants it");
  await new Deliverer({ webhooks: fileWebhookStores(dir), rules: LOOPBACK }).deliverDue();
  const event = verify(secret, hook.received[0]!);
  assert.equal(event.type, "data.published");
  assert.equal(event.data.dataset, "grid.availability_weekly");
  assert.equal(event.data.periods_added, 17);
  assert.match(
    event.data.url as string,
    /^\/api\/v1\/grid\/availability\/weekly\?start=\d{4}-\d{2}-\d{2}&end=\d{4}-\d{2}-\d{2}$/,
  );
  assert.ok(hook.received[0]!.body.length < 20_000);
  // The same file again publishes nothing new: no event.
  await pullPortal({
    dir,
    root: stand.root,
    files: [portalFile("Weekly_unplanned_outages.csv")!],
    policy,
    now: () => at + 3_600_000,
  });
  assert.equal(pendingDeliveries(dir).length, 0);
});

test("a server killed with SIGKILL between two attempts delivers after its restart, with the same webhook-id", async (t) => {
  const dir = tempDir(t);
  const hook = await receiver(t, [500, 200]);
  const { secret } = await subscribe(dir, { account: "a", url: hook.url, events: ["webhook.test"] });
  // A second attempt 3 s after the first: the kill comes between them, once the first is recorded.
  const env = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_RETRY_S: "0,3" };
  const first = await startServerProcess(t, dir, { env });
  const [made] = enqueue(dir, { type: "webhook.test", data: {} });
  await waitFor(() => pendingDeliveries(dir)[0]?.attempts.length === 1, "the first attempt recorded");
  first.child.kill("SIGKILL");
  await new Promise((resolve) => first.child.on("exit", resolve));
  assert.equal(pendingDeliveries(dir)[0]?.id, made!.id, "still in the outbox after the kill");
  await startServerProcess(t, dir, { env });
  await waitFor(() => hook.received.length === 2, "the attempt after the restart");
  assert.deepEqual(
    hook.received.map((r) => r.headers["webhook-id"]),
    [made!.id, made!.id],
  );
  verify(secret, hook.received[1]!);
  await waitFor(() => deliveryLog(dir).length === 1, "the delivery logged");
  assert.deepEqual(
    deliveryLog(dir)[0]!.attempts.map((a) => a.status),
    [500, 200],
  );

  // An ingest beside the running server: a data.published per hourly dataset, sent by the server.
  const published = await subscribe(dir, { account: "b", url: hook.url, events: ["data.published"] });
  const file = join(tempDir(t), "day.csv");
  writeFileSync(file, generateSampleExport({ firstDay: "2025-03-01", days: 1 }));
  const ingest = spawnSync(process.execPath, ["--import", "tsx", "scripts/ingest.ts", file], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir },
    encoding: "utf8",
  });
  assert.equal(ingest.status, 0, ingest.stderr);
  await waitFor(() => hook.received.length === 2 + 7, "seven data.published deliveries");
  const events = hook.received.slice(2).map((r) => verify(published.secret, r));
  assert.deepEqual(
    events.map((e) => [e.type, e.data.hours_added, e.data.first_hour, e.data.last_hour]),
    events.map(() => ["data.published", 24, "2025-02-28T22:00:00.000Z", "2025-03-01T21:00:00.000Z"]),
  );
  assert.equal(new Set(events.map((e) => e.data.dataset)).size, 7);
});

const EXPORT = join(REAL_DATA_DIR, "export_2020-04_2022-06.csv");

test(
  "replayed day by day, the real export of May 2022 makes the load-reduction and stress-band events of its hours",
  {
    skip: skipUnless(
      existsSync(EXPORT),
      `the 2020-22 export is not at ${EXPORT}; this test needs ../shared/data/eskom`,
    ),
  },
  async (t) => {
    const dir = tempDir(t);
    await subscribe(dir, {
      account: "a",
      url: "https://hooks.example.org/gds",
      events: ["grid_stress.band_changed", "load_reduction.started", "load_reduction.ended"],
    });
    const [header, ...rows] = readFileSync(EXPORT, "utf8").trimEnd().split(/\r?\n/);
    const mlrAt = header!.split(",").indexOf("Manual Load_Reduction(MLR)");
    const upTo = (day: string) => rows.filter((r) => r < day);
    const days = ["2022-05-18", "2022-05-19", "2022-05-20", "2022-05-21", "2022-05-22", "2022-05-23"];
    ingestTexts(dir, { "before.csv": [header, ...upTo(days[0]!)].join("\n") + "\n" });
    assert.equal(gridEvents(dir), pendingDeliveries(dir).length, "the first look covers the last day");
    const before = pendingDeliveries(dir).length;
    for (const [i, next] of days.slice(1).entries()) {
      const chunk = rows.filter((r) => r >= days[i]! && r < next);
      ingestTexts(dir, { [`${days[i]}.csv`]: [header, ...chunk].join("\n") + "\n" });
      gridEvents(dir);
    }
    const events = pendingDeliveries(dir)
      .slice(before)
      .map((d) => d.event);
    // Every start and end the export's own MLR column shows in those days (SAST stamps), in order.
    const expected: [string, string][] = [];
    const replayed = rows.filter((r) => r >= days[0]! && r < days.at(-1)!);
    let previous = Number(upTo(days[0]!).at(-1)!.split(",")[mlrAt]) > 0;
    for (const row of replayed) {
      const cells = row.split(",");
      const now = Number(cells[mlrAt]) > 0;
      if (now !== previous) {
        const utc = new Date(Date.parse(`${cells[0]!.replace(" ", "T")}Z`) - 2 * 3_600_000);
        expected.push([
          now ? "load_reduction.started" : "load_reduction.ended",
          formatInstant(utc.getTime()),
        ]);
      }
      previous = now;
    }
    const reduction = events.filter((e) => e.type.startsWith("load_reduction"));
    assert.ok(expected.length >= 2, `the export has load shedding these days (${expected.length} changes)`);
    assert.deepEqual(
      reduction.map((e) => [e.type, e.data.hour]),
      expected,
    );
    const started = reduction.find((e) => e.type === "load_reduction.started")!;
    assert.ok((started.data.mw as number) > 0);
    const bands = events.filter((e) => e.type === "grid_stress.band_changed");
    assert.ok(bands.length > 0, "the band moved");
    for (const b of bands) assert.notEqual(b.data.from, b.data.to);
    // Looked at once: nothing new, no event.
    assert.equal(gridEvents(dir), 0);
  },
);

test("a band threshold keeps the band changes that reach it: into, within and out of the bands at or above", async (t) => {
  const dir = tempDir(t);
  await subscribe(dir, {
    account: "a",
    url: "https://hooks.example.org/gds",
    events: ["grid_stress.band_changed"],
    minBand: "high",
  });
  assert.equal(readSubscriptions(dir)[0]!.min_band, "high");
  const change = (from: string, to: string) =>
    enqueue(dir, { type: "grid_stress.band_changed", data: { from, to, hour: "2022-05-18T15:00:00Z" } })
      .length;
  assert.deepEqual(
    [
      change("low", "moderate"),
      change("moderate", "high"),
      change("high", "critical"),
      change("high", "moderate"),
    ],
    [0, 1, 1, 1],
  );
  assert.deepEqual(
    [...STRESS_BAND_NAMES],
    STRESS_BANDS.map(([name]) => name),
    "the bands a subscription names are grid stress's own",
  );
});

test("a receiver that does not answer holds only its own deliveries: another subscription's go out meanwhile", async (t) => {
  const dir = tempDir(t);
  const fast = await receiver(t, [204]);
  // The slow receiver holds its requests open until the test lets it answer.
  let held: (() => void)[] = [];
  let answering = false;
  const slow = createServer((req, res) => {
    req.resume();
    if (answering) res.writeHead(204).end();
    else held.push(() => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => slow.close(() => resolve())));
  const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hooks`;
  await subscribe(dir, { account: "a", url: slowUrl, events: ["source.late"] });
  await subscribe(dir, { account: "b", url: fast.url, events: ["source.late"] });
  enqueue(dir, { type: "source.late", data: { file: "a.csv" } });
  enqueue(dir, { type: "source.late", data: { file: "b.csv" } });
  const round = new Deliverer({ webhooks: fileWebhookStores(dir), rules: LOOPBACK }).deliverDue();
  // Both events reach the fast receiver while the slow one still holds the first.
  await waitFor(() => held.length === 1 && fast.received.length === 2, "the fast receiver has both events");
  answering = true;
  for (const answer of held) answer();
  held = [];
  assert.equal(await round, 4);
  assert.deepEqual(
    deliveryLog(dir).map((d) => d.state),
    ["delivered", "delivered", "delivered", "delivered"],
  );
});

test("the webhooks CLI: create (checked), list, pause, resume, test, deliveries, rotate, delete; an empty store is left as it is", async (t) => {
  const dir = tempDir(t);
  const run = async (...argv: string[]) => {
    const out = { stdout: "", stderr: "" };
    const code = await runWebhooksCli(
      argv,
      fileWebhookStores(dir),
      LOOPBACK,
      {
        stdout: (text) => void (out.stdout += text),
        stderr: (text) => void (out.stderr += text),
      },
      ["grid.system_state", "features.grid_stress_index"],
    );
    return { code, ...out };
  };
  assert.equal((await run("list")).stdout, "");
  assert.ok(!existsSync(join(dir, "webhooks")), "listing an empty store writes nothing");
  const url = "https://203.0.113.7/in";
  assert.match(
    (await run("create", "--account", "a", "--url", url, "--events", "data.sent")).stderr,
    /Unknown event type data\.sent/,
  );
  assert.match(
    (await run("create", "--account", "a", "--url", url, "--min-band", "severe")).stderr,
    /Unknown band severe/,
  );
  const typo = await run(
    "create",
    "--account",
    "a",
    "--url",
    url,
    "--datasets",
    "grid.system_state,grid.stress",
  );
  assert.equal(typo.code, 2);
  assert.equal(
    typo.stderr,
    "Unknown dataset grid.stress; the datasets are grid.system_state, features.grid_stress_index\n",
  );
  const refused = await runWebhooksCli(
    ["create", "--account", "a", "--url", "https://10.0.0.8/in"],
    fileWebhookStores(dir),
    { allowPrivate: false, allowHttp: false },
    { stdout: () => {}, stderr: () => {} },
  );
  assert.equal(refused, 1, "a private address is refused by default");
  const created = await run("create", "--account", "a", "--url", url, "--min-band", "high");
  assert.equal(created.code, 0);
  const [, id, secret] = /Created (wh_\w+)[\s\S]*\n(whsec_\S+)\n$/.exec(created.stdout)!;
  assert.match((await run("list")).stdout, new RegExp(`^${id}  a  enabled  data.published,.*  ${url}\\n$`));
  const listed = JSON.parse((await run("list", "--json")).stdout) as Record<string, unknown>[];
  assert.equal(listed[0]!.min_band, "high");
  assert.ok(!("secrets" in listed[0]!) && !JSON.stringify(listed).includes(secret!), "no secret is listed");
  await run("pause", id!);
  assert.match((await run("list")).stdout, /paused \(paused by its owner\)/);
  await run("resume", id!);
  const queued = /Queued (msg_\w+)/.exec((await run("test", id!)).stdout)![1]!;
  assert.match((await run("deliveries", id!)).stdout, new RegExp(`${queued}  webhook.test  pending`));
  const rotated = (await run("rotate", id!)).stdout.trim().split("\n").at(-1)!;
  assert.match(rotated, /^whsec_/);
  assert.equal(readSubscriptions(dir)[0]!.secrets.length, 2);
  await run("delete", id!);
  assert.deepEqual(readSubscriptions(dir), []);
  assert.equal((await run("nonsense")).code, 2);
});
