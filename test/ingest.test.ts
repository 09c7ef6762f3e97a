import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestFiles } from "../src/ingest/ingest.ts";
import { columnIndex } from "../src/source/columns.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { exportCsv, ingestTexts, liveCsv, snapshotDir, tempDir, writeFile } from "./helpers.ts";

function storedValue(dir: string, isoHour: string, column: string): number | null {
  const store = createReadingStore({ dir });
  const v = store.reading(Date.parse(isoHour))?.[columnIndex(column)];
  return v === undefined || Number.isNaN(v) ? null : v;
}

test("ingest writes one JSON-lines file per UTC day, in UTC", (t) => {
  const dir = tempDir(t);
  const summary = ingestTexts(dir, {
    "a.csv": exportCsv(
      ["Residual Demand"],
      [
        ["2018-04-01 12:00:00 AM", "20000.0"],
        ["2018-04-01 01:00:00 AM", "20100.0"],
        ["2018-04-01 02:00:00 AM", "20200.0"],
      ],
    ),
  });
  assert.deepEqual(Object.keys(snapshotDir(join(dir, "readings"))), [
    "2018-03-31.jsonl",
    "2018-03.pack",
    "2018-04-01.jsonl",
    "2018-04.pack",
  ]);
  assert.equal(
    readFileSync(join(dir, "readings", "2018-03-31.jsonl"), "utf8"),
    '{"ts":"2018-03-31T22:00:00Z","residual_demand":20000}\n{"ts":"2018-03-31T23:00:00Z","residual_demand":20100}\n',
  );
  assert.equal(summary.rowsRead, 3);
  assert.equal(summary.hoursChanged, 3);
  assert.equal(summary.daysTouched, 2);
  assert.equal(summary.daysWritten, 2);
});

test("a blank value never overwrites a stored one; a later non-blank value wins", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "first.csv": exportCsv(["Residual Demand", "Wind"], [["2018-04-01 10:00:00 AM", "20000.0", "300.0"]]),
    "second.csv": exportCsv(["Residual Demand", "Wind"], [["2018-04-01 10:00:00 AM", "", "350.5"]]),
  });
  assert.equal(storedValue(dir, "2018-04-01T08:00:00Z", "residual_demand"), 20000);
  assert.equal(storedValue(dir, "2018-04-01T08:00:00Z", "wind"), 350.5);
});

test("files apply in the order given, so the later file wins", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "1.csv": exportCsv(["Wind"], [["2018-04-01 10:00:00 AM", "1.0"]]),
    "2.csv": exportCsv(["Wind"], [["2018-04-01 10:00:00 AM", "2.0"]]),
  });
  assert.equal(storedValue(dir, "2018-04-01T08:00:00Z", "wind"), 2);
});

test("an all-zero live placeholder row never overwrites a published hour", (t) => {
  const dir = tempDir(t);
  const header = ["Date Time Hour Beginning", "Wind", "PV", "CSP", "Other RE"];
  ingestTexts(dir, {
    "published.csv": liveCsv(header, [["2023-02-20 00:00:00", "1000,5", 0, 0, "30,1"]]),
    "later-download.csv": liveCsv(header, [["2023-02-20 00:00:00", 0, 0, 0, 0]]),
  });
  assert.equal(storedValue(dir, "2023-02-19T22:00:00Z", "wind"), 1000.5);
});

test("a row with no value creates no reading and no day file", (t) => {
  const dir = tempDir(t);
  const summary = ingestTexts(dir, {
    "blank.csv": liveCsv(["Date_Time_Hour_Beginning", "Thermal_Generation"], [["2023-02-20 05:00:00", ""]]),
  });
  assert.equal(summary.daysTouched, 0);
  assert.deepEqual(snapshotDir(join(dir, "readings")), {});
});

test("unsorted rows land in time order", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "u.csv": liveCsv(
      ["DateTimeKey", "Residual Forecast"],
      [
        ["2023-02-27 05:00:00", "20003"],
        ["2023-02-27 03:00:00", "20001"],
        ["2023-02-27 04:00:00", "20002"],
      ],
    ),
  });
  const text = readFileSync(join(dir, "readings", "2023-02-27.jsonl"), "utf8");
  assert.deepEqual(
    text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).residual_forecast),
    [20001, 20002, 20003],
  );
});

test("ingesting the same files again leaves the store byte-identical", (t) => {
  const dir = tempDir(t);
  const texts = {
    "a.csv": exportCsv(["Wind", "PV"], [["2018-04-01 10:00:00 AM", "1.5", "2.0"]]),
    "b.csv": liveCsv(["Date Time Hour Beginning", "Wind"], [["2018-04-01 11:00:00", "7,25"]]),
  };
  ingestTexts(dir, texts);
  const before = snapshotDir(dir);
  const again = ingestTexts(dir, texts);
  assert.deepEqual(snapshotDir(dir), before);
  assert.equal(again.hoursChanged, 0);
  assert.equal(again.daysWritten, 0);
});

test("a bad file is refused whole while the other files of the call still ingest", (t) => {
  const dir = tempDir(t);
  const src = tempDir(t);
  const good = writeFile(src, "good.csv", exportCsv(["Wind"], [["2018-04-01 10:00:00 AM", "5.0"]]));
  const bad = writeFile(
    src,
    "bad.csv",
    exportCsv(
      ["Wind"],
      [
        ["2018-05-01 10:00:00 AM", "5.0"],
        ["2018-05-01 11:00:00 AM", "five"],
      ],
    ),
  );
  const html = writeFile(
    src,
    "Station_Build_Up.csv",
    "<html><body>Error 404 - www.eskom.co.za</body></html>",
  );
  const summary = ingestFiles([bad, good, html], { dir });
  assert.deepEqual(
    summary.failures.map((f) => [f.kind, f.file]),
    [
      ["source", bad],
      ["source", html],
    ],
  );
  assert.match(summary.failures[0]!.message, /line 3 of "bad.csv"/);
  // Line 2 of bad.csv was fine, yet nothing of that file was stored.
  assert.deepEqual(Object.keys(snapshotDir(join(dir, "readings"))), ["2018-04-01.jsonl", "2018-04.pack"]);
});

test("a missing file is reported, not thrown", (t) => {
  const dir = tempDir(t);
  const summary = ingestFiles([join(dir, "nope.csv")], { dir });
  assert.equal(summary.failures.length, 1);
  assert.match(summary.failures[0]!.message, /Cannot read "nope.csv"/);
});

/** A file with a new hour for 2018-04-01 (09:00 UTC) and one for a new day, 2018-04-05. */
function laterRows(t: TestContext): string {
  const rows = [
    ["2018-04-01 11:00:00 AM", "6.0"],
    ["2018-04-05 11:00:00 AM", "7.0"],
  ];
  return writeFile(tempDir(t), "b.csv", exportCsv(["Wind"], rows));
}

test("a damaged day file is set aside, the day restored from its pack and the new rows merged", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "a.csv": exportCsv(["Wind"], [["2018-04-01 10:00:00 AM", "5.0"]]) });
  const damaged = join(dir, "readings", "2018-04-01.jsonl");
  const cut = '{"ts":"2018-04-01T08:00:00Z","wind":5}\n{"ts":"2018-04-01T09:00:00Z",\n';
  writeFileSync(damaged, cut);
  const file = laterRows(t);
  const summary = ingestFiles([file], { dir });
  assert.deepEqual(summary.failures, []);
  assert.equal(summary.repaired.length, 1);
  assert.match(
    summary.repaired[0]!.message,
    /2018-04-01.jsonl did not match the manifest: restored from its month pack; the unreadable file is kept as 2018-04-01.jsonl.damaged-/,
  );
  assert.equal(
    readFileSync(damaged, "utf8"),
    '{"ts":"2018-04-01T08:00:00Z","wind":5}\n{"ts":"2018-04-01T09:00:00Z","wind":6}\n',
    "the stored hour and the new one",
  );
  const kept = readdirSync(join(dir, "readings")).find((n) => n.startsWith("2018-04-01.jsonl.damaged-"))!;
  assert.equal(readFileSync(join(dir, "readings", kept), "utf8"), cut, "kept as it was, for the operator");
  assert.ok(existsSync(join(dir, "readings", "2018-04-05.jsonl")));
});

test("an unreadable day file the manifest does not know is left alone and reported, other days still ingest", (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, "readings"), { recursive: true });
  const corrupt = join(dir, "readings", "2018-04-01.jsonl");
  writeFileSync(corrupt, '{"ts":"2018-04-01T08:00:00Z","wind":5}\n{"ts":"2018-04-01T09:00:00Z",\n');
  writeFileSync(join(dir, "manifest.json"), '{"format": 1, "days": {}}\n');
  const file = laterRows(t);
  const summary = ingestFiles([file], { dir });
  assert.equal(summary.failures.length, 1);
  assert.equal(summary.failures[0]!.kind, "day");
  assert.match(summary.failures[0]!.message, /Cannot parse line 2 of "2018-04-01.jsonl"/);
  assert.equal(readFileSync(corrupt, "utf8").endsWith(",\n"), true, "the corrupt file is untouched");
  assert.ok(existsSync(join(dir, "readings", "2018-04-05.jsonl")));
});

test("the manifest is rewritten when it was lost, even if no day changed", (t) => {
  const dir = tempDir(t);
  const texts = { "a.csv": exportCsv(["Wind"], [["2018-04-01 10:00:00 AM", "5.0"]]) };
  ingestTexts(dir, texts);
  const manifest = readFileSync(join(dir, "manifest.json"), "utf8");
  writeFileSync(join(dir, "manifest.json"), "{ not json");
  ingestTexts(dir, texts);
  assert.equal(readFileSync(join(dir, "manifest.json"), "utf8"), manifest);
});

test("ingest reports progress through parsing and writing", (t) => {
  const dir = tempDir(t);
  const src = tempDir(t);
  const file = writeFile(src, "a.csv", exportCsv(["Wind"], [["2018-04-01 10:00:00 AM", "5.0"]]));
  const seen: string[] = [];
  ingestFiles([file], { dir, onProgress: (stage, done, total) => seen.push(`${stage} ${done}/${total}`) });
  assert.deepEqual(seen, ["parse 0/1", "parse 1/1", "write 0/1", "write 1/1"]);
});
