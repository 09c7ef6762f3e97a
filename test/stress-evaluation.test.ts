/**
 * The walk-forward evaluation of grid stress v2 (scripts/stress-evaluation.ts) on made-up hours:
 * a year is scored only by what came before it, the stage history is read as published, and the
 * calibration bins are what they say. The run on the real files is in scripts.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  calibration,
  evaluate,
  evaluationYears,
  fitV2,
  type LabelledHour,
  stageHistory,
  walkForward,
} from "../scripts/stress-evaluation.ts";
import { CannotEvaluate } from "../scripts/evaluation-files.ts";
import { V2_COMPONENTS, type V2Components } from "../src/features/stress-v2.ts";
import { prng } from "../src/sample/sample-model.ts";

const HOUR = 3_600_000;

// Three years of hours every 5 hours, whose label follows diesel_week with noise.
function madeUp(seed = 1): LabelledHour[] {
  const random = prng(seed);
  const hours: LabelledHour[] = [];
  for (let t = Date.parse("2019-01-01T00:00:00Z"); t < Date.parse("2022-01-01T00:00:00Z"); t += 5 * HOUR) {
    const components = Object.fromEntries(V2_COMPONENTS.map((name) => [name, random()])) as V2Components;
    components.evening_peak = random() < 0.2 ? 1 : 0;
    const mlr = components.diesel_week! + 0.3 * (random() - 0.5) > 0.7;
    hours.push({ hour: t, components, v1: random(), mlr, stage: mlr, columns: Float64Array.of(random()) });
  }
  return hours;
}

test("each year is scored by a fit of the hours before it alone: changing a later year changes nothing earlier", () => {
  const hours = madeUp();
  const scored = walkForward(hours);
  assert.deepEqual(
    [...new Set(scored.map((h) => new Date(h.hour + 2 * HOUR).getUTCFullYear()))],
    [2020, 2021],
  );
  // Flip 2020's labels: 2020's scores (fitted on 2019) stay, 2021's (fitted on 2019 and 2020) move.
  const year2020 = (h: { hour: number }) =>
    h.hour >= Date.parse("2019-12-31T22:00:00Z") && h.hour < Date.parse("2020-12-31T22:00:00Z");
  const again = walkForward(hours.map((h) => (year2020(h) ? { ...h, mlr: !h.mlr } : h)));
  assert.deepEqual(
    again.filter(year2020).map((h) => h.v2),
    scored.filter(year2020).map((h) => h.v2),
  );
  assert.notDeepEqual(
    again.filter((h) => !year2020(h)).map((h) => h.v2),
    scored.filter((h) => !year2020(h)).map((h) => h.v2),
    "2021 is scored by a fit that saw 2020",
  );
});

test("a year is scored only when the years before it hold load reduction; none scored is said", () => {
  const year2019 = (h: { hour: number }) => h.hour < Date.parse("2019-12-31T22:00:00Z");
  const quiet2019 = madeUp().map((h) => (year2019(h) ? { ...h, mlr: false } : h));
  assert.deepEqual(evaluationYears(quiet2019), [2021], "2020 would be scored by a fit of no load reduction");
  assert.deepEqual(
    evaluate(quiet2019).periods.map((p) => p.period),
    ["2021", "all evaluated hours"],
  );
  const only2019 = madeUp().filter(year2019);
  assert.throws(
    () => evaluate(only2019),
    (e: unknown) =>
      e instanceof CannotEvaluate &&
      /^no year can be scored: .*\(the exports hold 2019, with \d+ hours of it\)$/.test(e.message),
  );
});

test("the fit finds the component that carries the label, and the evaluation ranks by it", () => {
  const hours = madeUp();
  const fit = fitV2(hours);
  const weights = V2_COMPONENTS.map((name) => Math.abs(fit.coefficients[name]));
  assert.equal(V2_COMPONENTS[weights.indexOf(Math.max(...weights))], "diesel_week");
  const evaluation = evaluate(hours);
  assert.deepEqual(
    evaluation.periods.map((p) => p.period),
    ["2020", "2021", "all evaluated hours"],
  );
  for (const period of evaluation.periods) {
    assert.ok(period.v2.mlr > 0.9, `${period.period} ${period.v2.mlr}`);
    assert.ok(Math.abs(period.v1.mlr - 0.5) < 0.1, "v1 here is noise");
  }
});

test("the stage history: SAST, newest first, hours without a leading zero; silent after its last row", () => {
  const stageAt = stageHistory(
    [
      '"created_at","stage"',
      '"2022-06-21 22:02:00","0"',
      '"2022-06-21 9:00:00","2"',
      '"2022-06-01 10:00:00","0"',
    ].join("\n"),
  );
  assert.equal(stageAt(Date.parse("2022-06-21T06:30:00Z")), 0, "08:30 SAST, before stage 2");
  assert.equal(stageAt(Date.parse("2022-06-21T07:30:00Z")), 2, "09:30 SAST");
  assert.equal(stageAt(Date.parse("2022-06-21T20:01:00Z")), 2, "22:01 SAST: it ends at 22:02");
  assert.equal(stageAt(Date.parse("2022-06-21T20:02:00Z")), 0, "the last row holds at its instant");
  assert.equal(stageAt(Date.parse("2022-06-21T20:03:00Z")), null, "and after it the history says nothing");
  assert.throws(
    () => stageHistory('"created_at","stage"\n"yesterday","2"'),
    /the stage history has an unreadable row: "yesterday","2"/,
  );
});

test("calibration: ten bins of equal hours by predicted value, and Brier scores against the base rate", () => {
  const hours = Array.from({ length: 100 }, (_, i) => ({
    ...madeUp()[0]!,
    hour: i,
    v2: i / 100,
    mlr: i >= 90,
    baseRate: 0.1,
  }));
  const c = calibration(hours);
  assert.equal(c.deciles.length, 10);
  assert.ok(c.deciles.every((d) => d.hours === 10));
  assert.deepEqual(
    c.deciles.map((d) => d.observed),
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
  );
  assert.equal(c.deciles[9]!.predicted, 0.945);
  assert.equal(c.baseBrier, 0.09);
  const brier = hours.reduce((s, h) => s + (h.v2 - (h.mlr ? 1 : 0)) ** 2, 0) / 100;
  assert.equal(c.brier, Number(brier.toFixed(4)));
});
