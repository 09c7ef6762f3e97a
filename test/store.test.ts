import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { encodePack, isPack, unpackDay } from "../src/store/month-pack.ts";
import { join } from "node:path";
import { columnIndex } from "../src/source/columns.ts";
import { emptyReading } from "../src/source/reading.ts";
import { emptyDay, parseDay, serializeDay } from "../src/store/day-file.ts";
import { loadManifest, parseManifest, serializeManifest } from "../src/store/manifest.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { exportCsv, ingestTexts, tempDir } from "./helpers.ts";

test("a day serializes canonically and parses back to the same readings", () => {
  const day = emptyDay("2024-03-05");
  const r = emptyReading();
  r[columnIndex("residual_demand")] = 20000.125;
  r[columnIndex("pumped_water_sco_pumping")] = -1614;
  day.hours[23] = r;
  const text = serializeDay(day);
  assert.equal(
    text,
    '{"ts":"2024-03-05T23:00:00Z","residual_demand":20000.125,"pumped_water_sco_pumping":-1614}\n',
  );
  assert.equal(serializeDay(parseDay(text, "2024-03-05")), text);
});

test("a malformed day file is refused, naming the file and line", () => {
  const bad: [string, RegExp][] = [
    ["{oops}\n", /line 1 of "2024-03-05.jsonl": .*JSON/],
    ["[1]\n", /not a JSON object/],
    ['{"ts":"2024-03-06T00:00:00Z"}\n', /"ts" is not an hour of 2024-03-05/],
    ['{"ts":"2024-03-05T00:30:00Z"}\n', /"ts" is not an hour/],
    ['{"ts":"2024-03-05T01:00:00Z"}\n{"ts":"2024-03-05T01:00:00Z"}\n', /line 2 .* appears twice/],
    ['{"ts":"2024-03-05T01:00:00Z","wind":"5"}\n', /"wind" is not a number/],
    ['{"ts":"2024-03-05T01:00:00Z","nope":5}\n', /unknown column "nope"/],
  ];
  for (const [text, message] of bad) assert.throws(() => parseDay(text, "2024-03-05"), message);
});

test("the manifest round-trips and is rebuilt from day files when lost or unreadable", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "a.csv": exportCsv(
      ["Residual Forecast", "Residual Demand"],
      [
        ["2024-01-01 10:00:00 AM", "21000.0", "21200.0"],
        ["2024-01-01 11:00:00 AM", "21000.0", ""],
      ],
    ),
  });
  const text = readFileSync(join(dir, "manifest.json"), "utf8");
  const manifest = parseManifest(text);
  assert.equal(serializeManifest(manifest), text);
  const entry = manifest.get("2024-01-01")!;
  assert.equal(entry.hours, 2);
  assert.equal(
    entry.lastActual,
    Date.parse("2024-01-01T08:00:00Z"),
    "the forecast-only hour is not an actual",
  );
  rmSync(join(dir, "manifest.json"));
  assert.deepEqual(loadManifest(dir), manifest);
  writeFileSync(join(dir, "manifest.json"), '{"format": 99}');
  assert.deepEqual(loadManifest(dir), manifest);
});

test("the reading store keeps at most cacheDays parsed days", (t) => {
  const dir = tempDir(t);
  const rows = ["01", "02", "03"].map((d) => [`2024-01-${d} 10:00:00 AM`, "1.0"]);
  ingestTexts(dir, { "a.csv": exportCsv(["Wind"], rows) });
  const store = createReadingStore({ dir, cacheDays: 2 });
  const d1 = store.day("2024-01-01")!;
  const d2 = store.day("2024-01-02")!;
  assert.equal(store.day("2024-01-02"), d2, "a cached day is the same object");
  store.day("2024-01-03");
  assert.notEqual(store.day("2024-01-01"), d1, "the least recently used day was evicted");
  assert.equal(store.day("2024-01-04"), undefined);
});

test("after an ingest the reading store drops only the days whose hash changed", (t) => {
  const dir = tempDir(t);
  const rows = ["01", "02", "03"].map((d) => [`2024-01-${d} 10:00:00 AM`, "1.0"]);
  ingestTexts(dir, { "a.csv": exportCsv(["Wind"], rows) });
  const store = createReadingStore({ dir, cacheDays: 10 });
  const d2 = store.day("2024-01-02")!;
  const before3 = store.day("2024-01-03")!;
  assert.equal(store.refresh().version, 1, "no ingest, no new version");
  ingestTexts(dir, { "b.csv": exportCsv(["Wind"], [["2024-01-03 10:00:00 AM", "9.0"]]) });
  assert.equal(store.refresh().version, 2);
  assert.equal(store.day("2024-01-02"), d2, "an unchanged day stays cached");
  const after3 = store.day("2024-01-03")!;
  assert.notEqual(after3, before3);
  assert.equal(after3.hours[8]![columnIndex("wind")], 9);
});

test("a month pack gives back each day exactly, and only for the content it was made from", () => {
  const a = emptyDay("2024-03-05");
  const r = emptyReading();
  r[columnIndex("residual_demand")] = 20000.125;
  r[columnIndex("pumped_water_sco_pumping")] = -1614;
  a.hours[0] = r;
  a.hours[23] = emptyReading();
  const b = emptyDay("2024-03-31");
  b.hours[5] = emptyReading();
  b.hours[5][columnIndex("wind")] = 7;
  const hashA = "0123456789abcdef0123456789abcdef";
  const hashB = "fedcba9876543210fedcba9876543210";
  const pack = encodePack([
    { day: a, hash: hashA },
    { day: b, hash: hashB },
  ]);
  assert.ok(isPack(pack));
  assert.equal(serializeDay(unpackDay(pack, "2024-03-05", hashA)!), serializeDay(a));
  assert.equal(serializeDay(unpackDay(pack, "2024-03-31", hashB)!), serializeDay(b));
  assert.ok(
    unpackDay(pack, "2024-03-05", hashA)!.hours[23] !== undefined,
    "an hour with no values stays present",
  );
  assert.equal(unpackDay(pack, "2024-03-05", hashB), undefined, "stale slot");
  assert.equal(unpackDay(pack, "2024-03-06", hashA), undefined, "empty slot");
  assert.equal(isPack(pack.subarray(0, pack.length - 8)), false, "truncated");
  const other = Buffer.from(pack);
  other.write("0000000000000000", 8, "ascii");
  assert.equal(isPack(other), false, "another column catalog");
});

test("the store reads the day file when the pack is stale, missing or broken, and ingest mends the pack", (t) => {
  const dir = tempDir(t);
  const texts = { "a.csv": exportCsv(["Wind"], [["2024-01-01 10:00:00 AM", "1.0"]]) };
  ingestTexts(dir, texts);
  const pack = join(dir, "readings", "2024-01.pack");
  const good = readFileSync(pack);
  const wind = () =>
    createReadingStore({ dir }).reading(Date.parse("2024-01-01T08:00:00Z"))![columnIndex("wind")];
  writeFileSync(
    pack,
    encodePack([{ day: emptyDay("2024-01-01"), hash: "ffffffffffffffffffffffffffffffff" }]),
  );
  assert.equal(wind(), 1, "a slot made from other content is ignored");
  writeFileSync(pack, "garbage");
  assert.equal(wind(), 1);
  rmSync(pack);
  assert.equal(wind(), 1);
  ingestTexts(dir, texts);
  assert.deepEqual(readFileSync(pack), good, "re-ingest rebuilds the pack");
  writeFileSync(pack, encodePack([]));
  ingestTexts(dir, texts);
  assert.deepEqual(readFileSync(pack), good);
});

test("a new ingest rewrites only the months it touched, keeping the other days of each", (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, {
    "a.csv": exportCsv(
      ["Wind"],
      [
        ["2024-01-01 10:00:00 AM", "1.0"],
        ["2024-01-20 10:00:00 AM", "2.0"],
        ["2024-02-20 10:00:00 AM", "3.0"],
      ],
    ),
  });
  const feb = readFileSync(join(dir, "readings", "2024-02.pack"));
  ingestTexts(dir, { "b.csv": exportCsv(["Wind"], [["2024-01-20 10:00:00 AM", "5.0"]]) });
  assert.deepEqual(readFileSync(join(dir, "readings", "2024-02.pack")), feb);
  const store = createReadingStore({ dir });
  assert.equal(store.reading(Date.parse("2024-01-01T08:00:00Z"))![columnIndex("wind")], 1);
  assert.equal(store.reading(Date.parse("2024-01-20T08:00:00Z"))![columnIndex("wind")], 5);
});
