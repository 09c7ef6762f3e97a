/**
 * The outlook's record (`src/features/outlook-record.ts`, version 2): the formula and the same-hour
 * share weighed by how each did in the 28 days before; the evaluation's replay of it
 * (`withRecord`) gives the chances the service issues; and where load reduction has run in every
 * hour for weeks, which the formula never learnt, the record moves the outlook to the same-hour
 * share.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { examples, withRecord } from "../scripts/outlook-evaluation.ts";
import { issueOutlook } from "../src/features/outlook.ts";
import { OUTLOOK_FIT } from "../src/features/outlook-fit.ts";
import { type OutlookSource, storedForecast } from "../src/features/outlook-inputs.ts";
import { outlookProbability } from "../src/features/outlook-model.ts";
import { formulaWeights, mixedChance, type RecordedHour } from "../src/features/outlook-record.ts";
import { columns, requireColumn } from "../src/source/columns.ts";
import type { Reading } from "../src/source/reading.ts";
import { prng } from "../src/sample/sample-model.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MLR = requireColumn("manual_load_reduction_mlr");

const hour = (lead: number, formula: number, sameHour: number, shed: boolean): RecordedHour => ({
  lead,
  formula,
  sameHour,
  shed,
});

test("without a record the two weigh the same; each bucket keeps its own; an outlook counts once", () => {
  assert.deepEqual(formulaWeights([]), { "1-24": 0.5, "25-72": 0.5, "73-168": 0.5, "over 168": 0.5 });
  assert.deepEqual(formulaWeights([[], []]), formulaWeights([]));
  // The formula right within a day, the same-hour share right past three days.
  const day = [hour(5, 0.9, 0.5, true), hour(100, 0.1, 0.9, true)];
  const weights = formulaWeights([day, day]);
  assert.ok(weights["1-24"] > 0.5 && weights["73-168"] < 0.5, JSON.stringify(weights));
  assert.equal(weights["25-72"], 0.5);
  // Each forecast's loss is a sum over outlooks of its mean loss: twice as many hours of the same
  // outlook weigh the same, a second outlook more.
  assert.deepEqual(formulaWeights([[...day, ...day], day]), weights);
  assert.ok(formulaWeights([day, day, day])["1-24"] > weights["1-24"]);
  // exp(−loss) each, normalised: over two outlooks, log(0.9) against log(0.5) each.
  assert.equal(weights["1-24"].toFixed(12), (1 / (1 + (0.9 / 0.5) ** -2)).toFixed(12));
  assert.equal(mixedChance(weights, 5, 0.8, 0.2), weights["1-24"] * 0.8 + (1 - weights["1-24"]) * 0.2);
});

/**
 * 200 days of hours: load reduction in episodes of 1 to 12 days (its evening hours, or all day in
 * the longer ones) between quiet spells, then, in the last `allDay` days, in every hour.
 */
function madeUp(allDay = 0): { reading: (hour: number) => Reading | undefined; end: number } {
  const random = prng(11);
  const hours = new Map<number, Reading>();
  const first = Date.parse("2022-01-01T22:00:00Z");
  const end = first + 200 * DAY;
  let state = { shedding: false, left: 5, allHours: false };
  for (let t = first; t < end; t += HOUR) {
    const sast = new Date(t + 2 * HOUR).getUTCHours();
    if (sast === 0 && --state.left <= 0) {
      const shedding = !state.shedding;
      state = { shedding, left: 1 + Math.floor(random() * (shedding ? 12 : 20)), allHours: random() < 0.4 };
    }
    const evening = sast >= 16 && sast <= 22;
    const on = t >= end - allDay * DAY || (state.shedding && (state.allHours || evening));
    const reading = new Float64Array(columns.length).fill(NaN);
    reading[MLR] = on ? 1000 + 1000 * random() : 0;
    reading[requireColumn("rsa_contracted_demand")] = 25_000 + 3000 * Math.sin((sast / 24) * 2 * Math.PI);
    reading[requireColumn("rsa_contracted_forecast")] = 25_500 + 3000 * Math.sin((sast / 24) * 2 * Math.PI);
    reading[requireColumn("eskom_ocgt_generation")] = on ? 800 * random() : 50;
    hours.set(t, reading);
  }
  return { reading: (t) => hours.get(t), end };
}

// The outlook the service issues for the issue of an example: from its newest actual hour, at its time.
function issuedAs(source: OutlookSource, example: { issuedAt: number; hour: number; lead: number }) {
  const t0 = example.hour - example.lead * HOUR;
  const forecast = (h: number) => storedForecast(source, h);
  return issueOutlook(source, { t0, issuedAt: example.issuedAt, fit: OUTLOOK_FIT, forecast })!;
}

test("the evaluation's replay of the record gives the chances the service issues", () => {
  const source = madeUp();
  // Issued each day at 06:00 SAST from the last hour of the day three days before, as replayed.
  const from = source.end - 40 * DAY;
  const scored = withRecord(
    examples(source, from - 40 * DAY, source.end - 10 * DAY).map((e) => ({
      ...e,
      formula: outlookProbability(OUTLOOK_FIT, e.inputs, e.lead),
    })),
  );
  const issues = [...new Set(scored.map((e) => e.issuedAt))].filter((at) => at >= from);
  assert.ok(issues.length >= 25);
  let weighed = 0;
  for (const issuedAt of issues) {
    const rows = scored.filter((e) => e.issuedAt === issuedAt);
    const issued = issuedAs(source, rows[0]!);
    assert.deepEqual(
      issued.hours.map((h) => h.probability),
      rows.map((e) => e.probability),
      new Date(issuedAt).toISOString(),
    );
    if (Object.values(issued.weights).some((w) => Math.abs(w - 0.5) > 0.1)) weighed++;
  }
  assert.ok(weighed > issues.length / 2, `the record weighed one above the other in ${weighed} issues`);
});

test("load reduction in every hour for weeks: the formula, which never learnt it, gives way to the same-hour share", () => {
  const source = madeUp(45);
  // The issue of a day eight days before the end: five weeks of load reduction in every hour behind it.
  const [first] = examples(source, source.end - 8 * DAY, source.end - 7 * DAY);
  const { issuedAt } = first!;
  const rows = examples(source, issuedAt - DAY, issuedAt + DAY).filter((e) => e.issuedAt === issuedAt);
  const issued = issuedAs(source, first!);
  assert.ok(issued.weights["73-168"] < 0.05, JSON.stringify(issued.weights));
  const late = rows.filter((e) => e.lead > 72);
  assert.ok(late.length > 90 && late.every((e) => e.shed));
  for (const e of late) {
    const formula = outlookProbability(OUTLOOK_FIT, e.inputs, e.lead);
    const served = issued.hours.find((h) => h.hour === e.hour)!.probability;
    // The same-hour share of 7 days out of 7, smoothed, is 7.5 / 8.
    assert.ok(formula < 0.5 && served > 0.9, `${e.lead} h: the formula ${formula}, served ${served}`);
  }
});
