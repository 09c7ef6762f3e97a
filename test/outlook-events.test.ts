/**
 * `outlook.changed` (src/pull/outlook-events.ts): when the chance of load reduction in the coming
 * 24 hours of the outlook issued now moves into another band, once per crossing; the first look
 * only records the band; a store without subscriptions is not looked at. On the real export
 * replayed day by day, each event says what the API answers as of its look.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { outlookEvents } from "../src/pull/outlook-events.ts";
import { pendingDeliveries } from "../src/webhooks/outbox.ts";
import {
  exportCsv,
  REAL_DATA_DIR,
  sast,
  skipUnless,
  startServer,
  subscribe,
  tempDir,
  writeFile,
} from "./helpers.ts";
import { COLUMNS, history } from "./outlook-store.ts";

const HOUR = 3_600_000;

test("the coming day's band moving makes one outlook.changed; the same band again makes none", async (t) => {
  const dir = tempDir(t);
  const src = tempDir(t);
  // 06:00 SAST on a winter's day; the portal's newest hour 21:00 the evening before.
  const now = Date.parse("2026-06-10T04:00:00Z");
  const end = now - 6 * HOUR;
  // Sixty quiet days: no load reduction at all.
  ingestFiles([writeFile(src, "quiet.csv", exportCsv(COLUMNS, history(end, 0)))], { dir });
  assert.equal(outlookEvents(dir, now), 0, "no subscription: not looked at");
  assert.equal(existsSync(join(dir, "webhooks", "outlook-state.json")), false);
  await subscribe(dir, { account: "a", url: "https://hooks.example.org/gds", events: ["outlook.changed"] });
  assert.equal(outlookEvents(dir, now), 0, "the first look records the band");
  const state = JSON.parse(readFileSync(join(dir, "webhooks", "outlook-state.json"), "utf8"));
  assert.equal(state.band, "low");

  // A later download: load reduction on the last ten evenings.
  ingestFiles([writeFile(src, "shedding.csv", exportCsv(COLUMNS, history(end, 10)))], { dir });
  assert.equal(outlookEvents(dir, now), 1);
  const [delivery] = pendingDeliveries(dir);
  const data = delivery!.event.data;
  assert.equal(delivery!.event.type, "outlook.changed");
  assert.equal(data.from, "low");
  assert.notEqual(data.to, "low");
  assert.ok((data.probability as number) >= 0.3, `${data.probability as number}`);
  assert.equal(data.dataset, "features.load_shedding_outlook");
  const issued = Math.floor(now / HOUR) * HOUR;
  assert.equal(Date.parse(data.issued_at as string), issued);
  assert.equal(
    data.url,
    `/api/v1/features/load-shedding-outlook?as_of=${new Date(issued).toISOString().replace(".000Z", "Z")}`,
  );
  assert.equal(outlookEvents(dir, now + 10 * 60_000), 0, "once per crossing");
  assert.equal(pendingDeliveries(dir).length, 1);
});

const EXPORT = join(REAL_DATA_DIR, "export_2020-04_2022-06.csv");
const DAY = 24 * HOUR;
const PATH = "/api/v1/features/load-shedding-outlook";
const DAYS_REPLAYED = 30;

test(
  "replayed day by day, the real export makes outlook.changed once per crossing, each with the numbers its URL answers",
  {
    skip: skipUnless(
      existsSync(EXPORT),
      `the 2020-22 export is not at ${EXPORT}; this test needs ../shared/data/eskom`,
    ),
  },
  async (t) => {
    const dir = tempDir(t);
    const src = tempDir(t);
    await subscribe(dir, { account: "a", url: "https://hooks.example.org/gds", events: ["outlook.changed"] });
    const [header, ...rows] = readFileSync(EXPORT, "utf8").trimEnd().split(/\r?\n/);
    // Each day the portal's newest day arrives, and the outlook is looked at, at 06:00 SAST the next
    // day; the store keeps when each arrived, so the API answers as of each look.
    const first = Date.parse("2022-04-01T00:00:00+02:00");
    const looks: number[] = [];
    for (let day = first - DAY; day < first + DAYS_REPLAYED * DAY; day += DAY) {
      const [from, to] = [sast(day), sast(day + DAY)];
      const chunk = day < first ? rows.filter((r) => r < to) : rows.filter((r) => r >= from && r < to);
      const look = day + DAY + 6 * HOUR;
      const file = writeFile(src, `${from.slice(0, 10)}.csv`, [header, ...chunk].join("\n") + "\n");
      ingestFiles([file], { dir, now: () => look - 60_000 });
      outlookEvents(dir, look);
      looks.push(look);
    }
    const events = pendingDeliveries(dir).map((d) => d.event.data);
    // The API's own answer at each look: the likeliest of the coming 24 hours, and its band.
    const server = await startServer(t, dir);
    const bands: { band: string; probability: number; issued_at: string }[] = [];
    for (const look of looks) {
      const res = await server.get(`${PATH}?as_of=${new Date(look).toISOString()}`);
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as { data: { ts: string; probability: number; band: string }[] };
      const ahead = body.data.filter((r) => Date.parse(r.ts) >= look && Date.parse(r.ts) < look + DAY);
      const probability = Math.max(...ahead.map((r) => r.probability));
      bands.push({
        band: ahead.find((r) => r.probability === probability)!.band,
        probability,
        issued_at: new Date(look).toISOString(),
      });
    }
    // An event for each change of band between two looks, and none else, with the API's numbers.
    const changes = bands
      .slice(1)
      .flatMap((b, i) => (b.band === bands[i]!.band ? [] : [{ from: bands[i]!.band, b }]));
    assert.ok(changes.length >= 2, `the replayed days cross bands (${bands.map((b) => b.band).join(" ")})`);
    assert.deepEqual(
      events.map((e) => [e.from, e.to, e.probability, Date.parse(e.issued_at as string)]),
      changes.map(({ from, b }) => [from, b.band, b.probability, Date.parse(b.issued_at)]),
    );
    // Each event's URL answers the outlook it speaks of.
    for (const e of events) {
      const res = await server.get(e.url as string);
      const body = (await res.json()) as { meta: { issued_at: string } };
      assert.equal(Date.parse(body.meta.issued_at), Date.parse(e.issued_at as string));
    }
  },
);
