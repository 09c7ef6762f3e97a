/**
 * The load-shedding outlook's formula (`src/features/outlook*.ts`) on made-up hours: it reads
 * nothing after its newest actual hour but Eskom's forecast of the hours ahead, its hours run from
 * the one after that hour to 168 hours after it is issued, and its days say what their hours say.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { issueOutlook, newestActualHour, outlookDays } from "../src/features/outlook.ts";
import { OUTLOOK_FIT } from "../src/features/outlook-fit.ts";
import { issueState, storedForecast } from "../src/features/outlook-inputs.ts";
import { bucketOf, outlookBand } from "../src/features/outlook-model.ts";
import { columns, requireColumn } from "../src/source/columns.ts";
import type { Reading } from "../src/source/reading.ts";
import { prng } from "../src/sample/sample-model.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MLR = requireColumn("manual_load_reduction_mlr");
const FORECAST = requireColumn("rsa_contracted_forecast");
const T0 = Date.parse("2022-05-20T21:00:00Z"); // 23:00 SAST

/**
 * 120 days of hours to T0 (load reduction on the evenings of its last 10 days, some diesel and
 * demand), and forecasts only beyond it; `seed` fills the hours after T0 with noise.
 */
function madeUp(seed?: number): Map<number, Reading> {
  const random = prng(seed ?? 7);
  const hours = new Map<number, Reading>();
  const names = columns.map((c) => c.name);
  for (let t = T0 - 120 * DAY; t <= T0 + 12 * DAY; t += HOUR) {
    const reading = new Float64Array(names.length).fill(NaN);
    const sast = new Date(t + 2 * HOUR).getUTCHours();
    if (t <= T0) {
      const evening = sast >= 17 && sast <= 21;
      reading[MLR] = t > T0 - 10 * DAY && evening ? 2000 : 0;
      reading[requireColumn("rsa_contracted_demand")] = 26_000 + 3000 * Math.sin((sast / 24) * 2 * Math.PI);
      reading[requireColumn("eskom_ocgt_generation")] = evening ? 1500 : 100;
    } else if (seed !== undefined) {
      // What a later download would say of the hours after T0: anything at all.
      for (let c = 0; c < names.length; c++) reading[c] = random() * 10_000;
    }
    reading[FORECAST] = 27_000 + 3000 * Math.sin((sast / 24) * 2 * Math.PI);
    hours.set(t, reading);
  }
  return hours;
}

const sourceOf = (hours: Map<number, Reading>) => ({ reading: (hour: number) => hours.get(hour) });

function outlook(hours: Map<number, Reading>, issuedAt = T0 + 3 * DAY + 7 * HOUR) {
  const source = sourceOf(hours);
  const issued = issueOutlook(source, {
    t0: T0,
    issuedAt,
    fit: OUTLOOK_FIT,
    forecast: (hour) => storedForecast(source, hour),
  });
  return issued === null ? null : issued.hours;
}

test("the outlook reads nothing after its newest actual hour but Eskom's forecast of the hours ahead", () => {
  const before = outlook(madeUp());
  assert.ok(before !== null);
  // Every column of every later hour changed, the forecast kept: the same outlook.
  const noisy = madeUp(3);
  for (const [t, reading] of noisy) if (t > T0) reading[FORECAST] = madeUp().get(t)![FORECAST]!;
  assert.deepEqual(outlook(noisy), before);
  // A changed forecast of one hour ahead changes that hour's chance.
  const higher = madeUp();
  const target = T0 + 50 * HOUR;
  higher.get(target)![FORECAST] = 40_000;
  const after = outlook(higher)!;
  const at = (hours: typeof after) => hours.find((h) => h.hour === target)!.probability;
  assert.ok(at(after) > at(before), `${at(after)} > ${at(before)}`);
  assert.deepEqual(
    after.filter((h) => h.hour !== target),
    before.filter((h) => h.hour !== target),
  );
});

test("its hours run from the one after the newest actual hour to 168 hours after the instant it is issued", () => {
  const issuedAt = T0 + 3 * DAY + 7 * HOUR + 25 * 60_000; // 06:25 SAST, three days on
  const hours = outlook(madeUp(), issuedAt)!;
  assert.equal(hours[0]!.hour, T0 + HOUR);
  assert.equal(hours.at(-1)!.hour, T0 + 3 * DAY + 7 * HOUR + 168 * HOUR);
  assert.deepEqual(
    hours.map((h) => h.lead),
    hours.map((_, i) => i + 1),
  );
  for (const h of hours) {
    assert.ok(h.probability > 0 && h.probability < 1);
    assert.equal(h.band, outlookBand(h.probability));
  }
  // Load reduction on the last ten evenings: tomorrow's evening is likelier than its small hours.
  const sast = (h: number) => new Date(h + 2 * HOUR).getUTCHours();
  const tomorrow = hours.filter((h) => h.lead <= 24);
  const evening = Math.min(...tomorrow.filter((h) => sast(h.hour) === 19).map((h) => h.probability));
  const night = Math.max(...tomorrow.filter((h) => sast(h.hour) === 3).map((h) => h.probability));
  assert.ok(evening > 10 * night, `${evening} ${night}`);
  assert.deepEqual([1, 24, 25, 72, 73, 168, 169, 250].map(bucketOf), [
    "1-24",
    "1-24",
    "25-72",
    "25-72",
    "73-168",
    "73-168",
    "over 168",
    "over 168",
  ]);
});

test("no outlook without load-reduction values in the 7 days before; the newest actual hour is found", () => {
  const hours = madeUp();
  for (let t = T0 - 7 * DAY; t <= T0; t += HOUR) hours.get(t)![MLR] = NaN;
  const source = sourceOf(hours);
  assert.equal(issueState(source, T0), null);
  assert.equal(outlook(hours), null);
  assert.equal(newestActualHour(source, T0 + DAY, T0 + DAY), T0 - 7 * DAY - HOUR);
  const full = sourceOf(madeUp());
  assert.equal(newestActualHour(full, T0 + 5 * DAY, T0 + 5 * DAY), T0, "later hours hold no actual value");
  assert.equal(newestActualHour(full, T0 - 2 * HOUR + 1, T0), T0 - 2 * HOUR, "nothing after the instant");
  assert.equal(newestActualHour(full, T0 - 200 * DAY, T0), null);
  assert.equal(
    newestActualHour(full, T0 + 61 * DAY, T0),
    null,
    "two months old says nothing of the week ahead",
  );
});

test("a day's chance is its likeliest hour's, and its hours to expect the sum of its hours' chances", () => {
  const hours = outlook(madeUp())!;
  const sastDay = (hour: number) => Math.floor((hour + 2 * HOUR) / DAY) * DAY - 2 * HOUR;
  const days = outlookDays(hours, sastDay);
  assert.equal(
    days.reduce((s, d) => s + d.hours, 0),
    hours.length,
  );
  assert.equal(days[0]!.hours, 24, "T0 is 23:00 SAST: the next day is whole");
  for (const day of days) {
    const own = hours.filter((h) => sastDay(h.hour) === day.start);
    assert.equal(day.probability, Math.max(...own.map((h) => h.probability)));
    assert.ok(Math.abs(day.expectedHours - own.reduce((s, h) => s + h.probability, 0)) < 1e-9);
    assert.equal(day.band, outlookBand(day.probability));
  }
});
