/**
 * `outlook.changed` (src/pull/outlook-events.ts): when the chance of load reduction in the coming
 * 24 hours of the outlook issued now moves into another band, once per crossing; the first look
 * only records the band; a store without subscriptions is not looked at.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { outlookEvents } from "../src/pull/outlook-events.ts";
import { pendingDeliveries } from "../src/webhooks/outbox.ts";
import { exportCsv, subscribe, tempDir, writeFile } from "./helpers.ts";
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
