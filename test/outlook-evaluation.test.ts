/**
 * The outlook's walk-forward evaluation (`scripts/outlook-evaluation.ts`): on made-up examples, a
 * year is scored only by a fit of the years before it, and only when those hold enough load
 * reduction; on the real files, `npm run evaluate-outlook` refits the shipped formula and prints
 * the evaluation docs/api.md states.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  type Example,
  evaluateOutlook,
  MIN_TRAINING_SHED_HOURS,
  reliability,
  scoredDays,
  walkForward,
} from "../scripts/outlook-evaluation.ts";
import { OUTLOOK_INPUTS } from "../src/features/outlook-inputs.ts";
import { OUTLOOK_EVALUATION, OUTLOOK_FIT } from "../src/features/outlook-fit.ts";
import {
  dailyReliabilityTable,
  dailyTable,
  outlookTable,
  outlookTables,
  bucketVerdicts,
  meetsTheBar,
  type OutlookEvaluation,
  reliabilityTable,
  verdictTable,
  withOutlookTables,
} from "../src/features/outlook-report.ts";
import { prng } from "../src/sample/sample-model.ts";
import { markSample } from "../src/store/sample-mark.ts";
import { CannotEvaluate } from "../scripts/evaluation-files.ts";
import { storeOutlooks } from "../scripts/outlook-store-evaluation.ts";
import {
  CAN_MOUNT,
  exportCsv,
  ingestTexts,
  runScript,
  NEEDS_MOUNT,
  REAL_DATA_DIR,
  REAL_DATA_SKIP,
  sast,
  skipUnless,
  smallDisk,
  tempDir,
  writeFile,
} from "./helpers.ts";
import { generateSampleExport } from "../src/sample/sample-export.ts";
import { tableCells } from "./markdown-tables.ts";
import { COLUMNS, history } from "./outlook-store.ts";

const HOUR = 3_600_000;

// Three years of examples every 7 hours, leads 1 to 240, whose outcome follows the first input.
function madeUp(seed = 1): Example[] {
  const random = prng(seed);
  const out: Example[] = [];
  for (let t = Date.parse("2019-01-01T00:00:00Z"); t < Date.parse("2022-01-01T00:00:00Z"); t += 7 * HOUR) {
    const inputs = OUTLOOK_INPUTS.map(() => random() * 2 - 1);
    const shed = inputs[0]! + 0.6 * (random() - 0.5) > 0.4;
    const lead = 1 + Math.floor(random() * 240);
    // The same-hour share knows nothing here: the outlook's chance ranks as the formula's does.
    out.push({ issuedAt: t - lead * HOUR, hour: t, lead, inputs, shed, persistence: 0, sameHour: 0.5 });
  }
  return out;
}

// `npm run evaluate-outlook -- DIR`, run to its end.
async function evaluateOutlookIn(dir: string, env: NodeJS.ProcessEnv = process.env) {
  return runEvaluateOutlook([dir], env);
}

const runEvaluateOutlook = (args: readonly string[], env: NodeJS.ProcessEnv = process.env) =>
  runScript("scripts/evaluate-outlook.ts", args, env);

const inYear = (y: number) => (e: { hour: number }) => new Date(e.hour + 2 * HOUR).getUTCFullYear() === y;

test("each year is scored by a fit of the years before it alone, and only with enough load reduction", () => {
  const all = madeUp();
  const scored = walkForward(all);
  assert.deepEqual(
    [...new Set(scored.map((e) => new Date(e.hour + 2 * HOUR).getUTCFullYear()))],
    [2020, 2021],
  );
  // 2020's outcomes flipped: 2020's formula (from 2019's fit) stays, 2021's moves. (The outlook's
  // chances of 2020 move too: their record reads the outcomes known when each was issued.)
  const flipped = walkForward(all.map((e) => (inYear(2020)(e) ? { ...e, shed: !e.shed } : e)));
  assert.deepEqual(
    flipped.filter(inYear(2020)).map((e) => e.formula),
    scored.filter(inYear(2020)).map((e) => e.formula),
  );
  assert.notDeepEqual(
    flipped.filter(inYear(2021)).map((e) => e.probability),
    scored.filter(inYear(2021)).map((e) => e.probability),
  );
  // A first year with too little load reduction to learn from scores nothing after it.
  const quiet = all.map((e) => (inYear(2019)(e) ? { ...e, shed: false } : e));
  const fewer = walkForward(quiet);
  assert.ok(quiet.filter(inYear(2019)).filter((e) => e.shed).length < MIN_TRAINING_SHED_HOURS);
  assert.deepEqual([...new Set(fewer.map((e) => new Date(e.hour + 2 * HOUR).getUTCFullYear()))], [2021]);
  // Hours, not examples: 150 hours of load reduction, each scored at two leads, are too few.
  let kept = 0;
  const few = all.flatMap((e) => {
    if (!inYear(2019)(e)) return [e];
    const shed = e.shed && kept++ < 150;
    return [
      { ...e, shed },
      { ...e, lead: e.lead + 1, shed },
    ];
  });
  assert.equal(few.filter(inYear(2019)).filter((e) => e.shed).length, 300);
  assert.deepEqual(
    [...new Set(walkForward(few).map((e) => new Date(e.hour + 2 * HOUR).getUTCFullYear()))],
    [2021],
  );
  // The input that carries the outcome ranks it, in every bucket of lead.
  for (const bucket of evaluateOutlook(all).buckets) assert.ok(bucket.outlook.auc > 0.9, bucket.bucket);
});

test("the reliability table bins by tenth of probability, the last tenth holding 1", () => {
  const rows = [0, 0.05, 0.1, 0.55, 0.999, 1].map((probability, i) => ({
    ...madeUp()[i]!,
    probability,
    shed: i % 2 === 0,
  }));
  const tenths = reliability(rows);
  assert.deepEqual(
    tenths.map((r) => r.count),
    [2, 1, 0, 0, 0, 1, 0, 0, 0, 2],
  );
  assert.deepEqual([tenths[0]!.predicted, tenths[0]!.observed], [0.025, 0.5]);
  assert.deepEqual([tenths[2]!.predicted, tenths[2]!.observed], [null, null]);
});

test("the bar: better than both baselines, and every tenth of 100 hours or more within 0.1", () => {
  const tenth = (count: number, predicted: number, observed: number) => ({
    tenth: 0,
    count,
    predicted,
    observed,
  });
  const bucket = (auc: number, brier: number, reliability: ReturnType<typeof tenth>[]) => ({
    bucket: "1-24",
    hours: 1_000,
    shedHours: 100,
    outlook: { auc, brier },
    persistence: { auc: 0.8, brier: 0.1 },
    sameHour: { auc: 0.7, brier: 0.12 },
    reliability,
  });
  // 0.1 off is within; 99 hours do not count, however far off; a tie is not better.
  const met = bucket(0.9, 0.05, [tenth(100, 0.25, 0.15), tenth(99, 0.9, 0.1), tenth(0, 0, 0)]);
  const verdicts = bucketVerdicts([
    met,
    bucket(0.8, 0.05, [tenth(150, 0.5, 0.39)]),
    bucket(0.9, 0.1, [tenth(150, 0.5, 0.5)]),
  ]);
  assert.deepEqual(
    verdicts.map((v) => [v.auc, v.brier, v.within, v.tenths]),
    [
      [true, true, 1, 1],
      [false, true, 0, 1],
      [true, false, 1, 1],
    ],
  );
  const evaluation = (buckets: ReturnType<typeof bucket>[], perYear = buckets) =>
    ({ ...OUTLOOK_EVALUATION, buckets, perYear: [{ year: 2021, buckets: perYear }] }) as OutlookEvaluation;
  assert.equal(meetsTheBar(evaluation([met])), true);
  // Pooled is not enough: every year must meet it too.
  assert.equal(meetsTheBar(evaluation([met], [bucket(0.9, 0.05, [tenth(100, 0.3, 0.15)])])), false);
  assert.match(verdictTable(evaluation([met])), /^\| 1-24 \| yes \/ yes \| 1 of 1 \|$/m);
  assert.match(
    verdictTable(evaluation([met], [bucket(0.8, 0.05, [])])),
    /^\| 2021: 1-24 \| \*\*no\*\* \/ yes \| 0 of 0 \|$/m,
  );
});

test("a day of an outlook is scored as interval=1d serves it: its likeliest hour, its hours summed", () => {
  // One outlook whose newest actual hour is 23:00 SAST: a whole day, then 6 hours of the next.
  const t0 = Date.parse("2021-03-01T21:00:00Z");
  const hours = Array.from({ length: 30 }, (_, i) => ({
    ...madeUp()[0]!,
    issuedAt: t0 + 57 * HOUR,
    hour: t0 + (i + 1) * HOUR,
    lead: i + 1,
    formula: (i + 1) / 100,
    probability: (i + 1) / 100,
    shed: i + 1 === 26,
    persistence: 1,
    sameHour: i + 1 === 5 ? 0.5 : 0.2,
  }));
  const [first, second, ...rest] = scoredDays(hours);
  assert.equal(rest.length, 0);
  assert.deepEqual(
    {
      ...first!,
      expectedHours: Number(first!.expectedHours.toFixed(9)),
      sameHourHours: Number(first!.sameHourHours.toFixed(9)),
    },
    {
      year: 2021,
      lead: 1,
      hours: 24,
      shed: false,
      probability: 0.24,
      persistence: 1,
      sameHour: 0.5,
      expectedHours: 3,
      persistenceHours: 24,
      sameHourHours: 5.1,
      shedHours: 0,
    },
  );
  assert.deepEqual(
    [second!.lead, second!.hours, second!.probability, second!.shed, second!.shedHours],
    [25, 6, 0.3, true, 1],
  );
});

test(
  "npm run evaluate-outlook refits the shipped formula from the real exports and prints the evaluation docs/api.md states",
  { skip: REAL_DATA_SKIP },
  async (t) => {
    const dir = tempDir(t);
    // The exports alone: the outlook's outcome is their own load reduction, not the stage history.
    for (const name of ["eskom_data_v1-1.csv", "export_2020-04_2022-06.csv"]) {
      symlinkSync(join(REAL_DATA_DIR, name), join(dir, name));
    }
    const { code, stdout, stderr } = await evaluateOutlookIn(dir);
    assert.equal(code, 0, stderr);
    assert.ok(stdout.includes(outlookTable(OUTLOOK_EVALUATION)), "the table published");
    assert.ok(stdout.includes(reliabilityTable(OUTLOOK_EVALUATION)), "and the reliability");
    assert.ok(stdout.includes(dailyTable(OUTLOOK_EVALUATION)), "the days' table");
    assert.ok(stdout.includes(dailyReliabilityTable(OUTLOOK_EVALUATION)), "and their reliability");
    assert.ok(stdout.includes(verdictTable(OUTLOOK_EVALUATION)), "the evaluation against the bar");
    assert.ok(stdout.includes("It does not meet the bar.\n"), "and what it comes to");
    assert.deepEqual(
      JSON.parse(stdout.trimEnd().split("\n").at(-1)!),
      OUTLOOK_FIT,
      "the shipped formula is the fit of the real files: npm run evaluate-outlook -- --write",
    );
    assert.deepEqual(OUTLOOK_EVALUATION.years, [2021, 2022]);
  },
);

test("npm run evaluate-outlook on a folder without an export, no folder or a file says so and exits 2", async (t) => {
  const empty = tempDir(t);
  const missing = join(empty, "nowhere");
  for (const [dir, why] of [
    [empty, "holds no data-request export (a CSV file at its top level)."],
    [missing, "is not a folder. Pass the folder of the real Eskom files."],
    [
      writeFile(tempDir(t), "ESK2033.csv", "a file, not a folder\n"),
      "is not a folder. Pass the folder of the real Eskom files.",
    ],
  ] as const) {
    const { code, stderr } = await evaluateOutlookIn(dir);
    assert.equal(code, 2);
    assert.equal(stderr, `Cannot evaluate: ${dir} ${why}\n`);
  }
});

test("npm run evaluate-outlook refuses exports it cannot score, saying why, and exits 2", async (t) => {
  const sample = (days: number) => generateSampleExport({ firstDay: "2025-01-01", days });
  const hours = (days: number) =>
    Array.from({ length: days * 24 }, (_, h) => [
      sast(Date.parse("2024-12-31T22:00:00Z") + h * HOUR),
      25_000,
      20_000,
    ]);
  // Twenty days without load reduction, the sixth row's thermal generation missing.
  const noMlr = hours(20).map((row, i) => (i === 5 ? row.slice(0, 2) : row));
  for (const [files, ...lines] of [
    [
      { "ESK1.csv": sample(20), "notes.csv": "name,value\nfoo,1\n" },
      'a file was refused by the ingest: Cannot ingest line 1 of "notes.csv": unknown column "name"; this is not a known Eskom Data Portal header',
    ],
    [{ "ESK1.csv": exportCsv(["Manual Load_Reduction(MLR)"], []) }, "the exports hold no hour (ESK1.csv)"],
    [
      { "ESK1.csv": exportCsv(["Residual Demand", "Thermal Generation"], noMlr) },
      "Rows skipped by the ingest: 0 blank (hour not yet published), 0 all-zero placeholder (hour not yet published), 0 uncertain (not readable with certainty), 0 future (actual values of hours to come left out), 1 cut short (fewer fields than the header) (first: line 7 of ESK1.csv)",
      "no outlook can be issued and scored: that needs a week of hours with a manual load-reduction value (Manual Load_Reduction(MLR)) before an issue, and hours with one after it",
    ],
    [
      { "ESK1.csv": sample(40) },
      /^no year can be scored: a year is scored by a fit of the years before it once those hold 200 hours of load reduction \(the exports hold 2025, with \d+ hours of it\)$/,
    ],
  ] as const) {
    const dir = tempDir(t);
    for (const [name, text] of Object.entries(files)) writeFile(dir, name, text);
    const { code, stdout, stderr } = await evaluateOutlookIn(dir);
    assert.equal(code, 2, stderr);
    assert.equal(stdout, "");
    // A line on the rows skipped, if any, then one sentence saying why: no stack trace.
    const said = stderr.split("\n");
    assert.equal(said.pop(), "");
    assert.equal(said.length, lines.length, stderr);
    const why = lines.at(-1)!;
    const refusal = said.pop()!;
    assert.ok(refusal.startsWith("Cannot evaluate: "), stderr);
    if (typeof why === "string") assert.equal(refusal.slice("Cannot evaluate: ".length), why);
    else assert.match(refusal.slice("Cannot evaluate: ".length), why);
    assert.deepEqual(said, lines.slice(0, -1));
  }
});

test(
  "npm run evaluate-outlook on a full temporary disk says where and what to do, and leaves nothing there",
  { skip: skipUnless(CAN_MOUNT, NEEDS_MOUNT) },
  async (t) => {
    const dir = tempDir(t);
    writeFile(dir, "ESK1.csv", generateSampleExport({ firstDay: "2025-01-01", days: 200 }));
    const disk = smallDisk(t, "1m");
    const { code, stdout, stderr } = await evaluateOutlookIn(dir, { ...process.env, TMPDIR: disk });
    assert.equal(code, 2, stderr);
    assert.equal(stdout, "");
    assert.match(
      stderr,
      /^Cannot evaluate: the temporary store in .* cannot be written \(ENOSPC: no space left on device, \w+\): free some space there, or set TMPDIR to a folder with room\n$/,
    );
    assert.ok(stderr.includes(disk), stderr);
    assert.deepEqual(
      readdirSync(disk).filter((name) => name.startsWith("gds-eval-")),
      [],
      "the temporary store is removed",
    );
  },
);

test("a killed evaluation's temporary store is removed by the next evaluation; a running one's is not", async (t) => {
  const dir = tempDir(t);
  writeFile(dir, "ESK1.csv", generateSampleExport({ firstDay: "2025-01-01", days: 40 }));
  const tmp = tempDir(t);
  // (tsx keeps its cache there too.)
  const stores = () =>
    readdirSync(tmp)
      .filter((name) => name.startsWith("gds-eval-"))
      .sort();
  // Killed (as kill -9 would) once the ingest into its store is written, mid-evaluation.
  const killed = await evaluateOutlookIn(dir, {
    ...process.env,
    TMPDIR: tmp,
    GDS_FAILPOINT: "ingest:manifest-written",
  });
  assert.equal(killed.code, null, killed.stderr);
  const [left, ...more] = stores();
  assert.match(left ?? "", /^gds-eval-\d+-/);
  assert.equal(more.length, 0);
  // This process's own (it runs), and a name without a pid, are none of the sweep's business.
  const running = `gds-eval-${process.pid}-running`;
  for (const name of [running, "gds-eval-notes"]) mkdirSync(join(tmp, name));
  const next = await evaluateOutlookIn(dir, { ...process.env, TMPDIR: tmp });
  assert.equal(next.code, 2, "40 days: no year to score");
  assert.deepEqual(stores(), [running, "gds-eval-notes"].sort());
});

test("evaluate-outlook --store refuses what has no history to judge, saying why, and exits 2", async (t) => {
  const empty = tempDir(t);
  const aFile = writeFile(tempDir(t), "manifest.json", "{}\n");
  const sample = tempDir(t);
  ingestTexts(sample, { "ESK1.csv": generateSampleExport({ firstDay: "2025-01-01", days: 40 }) });
  markSample(sample);
  // Real-looking hours, stored at once today: nothing was received before the days they are of.
  const atOnce = tempDir(t);
  ingestTexts(atOnce, { "ESK1.csv": exportCsv(COLUMNS, history(Date.parse("2025-03-01T04:00:00Z"), 10)) });
  for (const [dir, why] of [
    [join(empty, "nowhere"), `${join(empty, "nowhere")} is not a folder: pass a DATA_DIR`],
    [aFile, `${aFile} is not a folder: pass a DATA_DIR`],
    [empty, `${empty} holds no stored hour`],
    [sample, `${sample} holds generated sample data, not Eskom's: there is nothing to judge`],
    [
      atOnce,
      /^no outlook issued as of a day in the store's history \(since its first ingest, .*\) has an hour with a known outcome: .* A store filled at once \(npm run ingest\) has no past to replay: judge its exports with npm run evaluate-outlook -- DIR$/,
    ],
  ] as const) {
    assert.throws(
      () => storeOutlooks(dir),
      (e) =>
        e instanceof CannotEvaluate && (typeof why === "string" ? e.message === why : why.test(e.message)),
      dir,
    );
  }
  // The command says it in one line, exit status 2; and how it is called, when it is not.
  const refused = await runEvaluateOutlook(["--store", empty]);
  assert.deepEqual(
    [refused.code, refused.stdout, refused.stderr],
    [2, "", `Cannot evaluate: ${empty} holds no stored hour\n`],
  );
  const misused = await runEvaluateOutlook(["--store", empty, "--write"]);
  assert.equal(misused.code, 2);
  assert.match(misused.stderr, /^Usage: npm run evaluate-outlook -- --store DATA_DIR/);
  // `make evaluate-outlook EVAL_STORE=` passes the folder as a store, not as a folder of exports.
  const make = spawnSync("make", ["--no-print-directory", "evaluate-outlook", `EVAL_STORE=${empty}`], {
    cwd: join(import.meta.dirname, ".."),
    encoding: "utf8",
  });
  assert.equal(make.status, 2, make.stderr);
  assert.match(make.stderr, new RegExp(`^Cannot evaluate: ${empty} holds no stored hour$`, "m"));
});

test("docs/api.md shows the shipped formula and its evaluation", () => {
  const doc = readFileSync(join(import.meta.dirname, "..", "docs", "api.md"), "utf8");
  for (const [name, generated] of Object.entries(outlookTables(OUTLOOK_FIT, OUTLOOK_EVALUATION))) {
    const start = doc.indexOf(`<!-- outlook: ${name} -->`);
    assert.ok(start > 0, `docs/api.md has the ${name} table`);
    const inPage = doc.slice(start, doc.indexOf("<!-- /outlook -->", start));
    assert.deepEqual(
      tableCells(inPage),
      tableCells(generated),
      `docs/api.md's ${name} table is stale: npm run evaluate-outlook -- --write`,
    );
  }
  assert.throws(
    () => withOutlookTables("<!-- outlook: x -->\n<!-- /outlook -->", {}),
    /no outlook table is named x/,
  );
});
