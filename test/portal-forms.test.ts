/**
 * What the live files' forms add to the rule that a header name is a column
 * (src/source/portal-forms.ts): the capacity file's renewables identity, the columns another file
 * is the source of, and the build-up of yesterday as a second source that only fills.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parsePortalCsv, PortalCsvError } from "../src/source/portal-csv.ts";
import { formOfHeader, PORTAL_FORMS } from "../src/source/portal-forms.ts";
import { ingestSources } from "../src/ingest/ingest.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { columnIndex, normalizeColumnName } from "../src/source/columns.ts";
import { PORTAL_FILES } from "../src/pull/portal-files.ts";
import { sourcesOf } from "../src/datasets/dataset-sources.ts";
import { DATASETS as DOCUMENTED } from "../src/datasets/registry.ts";
import { liveCsv, tempDir } from "./helpers.ts";

const CAPACITY_HEADER = [
  "DateTimeKey",
  "Available Capacity Incl Non Comm Units",
  "Available_Capacity_Incl_Non_Comm_Units_Incl_Total_RE",
  "Residual Demand",
  "RSA Contracted Demand",
];
const RECEIVED = Date.parse("2023-05-05T12:00:00Z");

test("every form is known by its header's set of names, whatever their order; none is the export", () => {
  for (const form of PORTAL_FORMS) {
    assert.equal(formOfHeader([...form.header].reverse()), form);
    for (const name of [...(form.checkOnly ?? []), ...(form.ignore ?? [])])
      assert.ok(form.header.includes(name));
  }
  assert.equal(formOfHeader(["date_time_hour_beginning", "residual_forecast"]), undefined);
});

test("the capacity file: a row whose renewables do not add up, or cannot be checked, is uncertain", () => {
  const rows = [
    // 2023-04-28 12:00 as published on 2023-05-05: 30818.846 - 27843.846 = 2975 and 27594.656 - 24619.629 = 2975.027.
    ["2023-04-28 12:00:00", 27843.846, 30818.846, 24619.629, 27594.656],
    // The batch of 2023-04-24: renewables of 29 MW beside 2975, and no residual demand.
    ["2023-04-28 13:00:00", 27843.846, 27872.846, "", 27594.656],
    ["2023-04-28 14:00:00", 27800.5, 30900.5, 24500.25, 27700.25], // 3100 vs 3200
    ["2023-04-28 15:00:00", "", "", "", 27000.5], // demand only: nothing stored
    ["2023-04-28 16:00:00", 27000.5, 28000.5, 25000.25, 26000.5],
    ["2023-04-28 17:00:00", 27000.5, 28000.5, 25000.25, 26001.25], // within 1 MW
  ];
  const file = parsePortalCsv(liveCsv(CAPACITY_HEADER, rows), "capacity.csv", { receivedAt: RECEIVED });
  assert.equal(file.skipped.uncertain, 2);
  assert.equal(file.skipped.blank, 1, "its own demand is not stored: the demand file is demand's source");
  assert.deepEqual(
    file.columnNames.filter((_, v) => file.rows[0]!.values[v]! === file.rows[0]!.values[v]!),
    ["available_capacity_incl_non_comm_units", "available_capacity_incl_non_comm_units_incl_total_re"],
  );
  assert.deepEqual(
    file.rows.map((r) => new Date(r.hour).toISOString()),
    ["2023-04-28T10:00:00.000Z", "2023-04-28T14:00:00.000Z", "2023-04-28T15:00:00.000Z"],
  );
  // A file most of whose rows with values fail is refused whole, with the reason.
  const bad = rows.slice(1, 3);
  assert.throws(
    () => parsePortalCsv(liveCsv(CAPACITY_HEADER, bad), "capacity.csv", { receivedAt: RECEIVED }),
    (error: unknown) =>
      error instanceof PortalCsvError &&
      /2 of its 2 rows with values cannot be read with certainty \(its capacity with renewables less without must equal RSA contracted less residual demand, within 1 MW\)/.test(
        error.message,
      ),
  );
});

test("the pumped-storage file: levels and limits stored, the build-up's columns in it not read", () => {
  const header = [
    "Date",
    "Eskom OCGT Generation",
    "Eskom Gas Generation",
    "Dispatchable IPP OCGT",
    "Manual Load Reduction(MLR)",
    "Palmiet Gen Unit Hours",
    "Ingula Gen Unit Hours",
    "Drakensberg Gen Unit Hours",
    "Palmiet Max Hours",
    "Ingula Max Hours",
    "Drakensberg Max Hours",
    "Palmiet Min Hours",
    "Ingula Min Hours",
    "Drakensberg Min Hours",
  ];
  const text = liveCsv(header, [
    ["2023-04-11 10:00:00", 432, 0, 0.174, 3193.286, 29.4, 53.24, 92.7, 58.7, 67, 102, 8, 12, 12],
  ]);
  const file = parsePortalCsv(text, "pumped.csv", { receivedAt: RECEIVED });
  assert.deepEqual(file.columnNames, [
    "palmiet_gen_unit_hours",
    "ingula_gen_unit_hours",
    "drakensberg_gen_unit_hours",
    "palmiet_max_hours",
    "ingula_max_hours",
    "drakensberg_max_hours",
    "palmiet_min_hours",
    "ingula_min_hours",
    "drakensberg_min_hours",
  ]);
  assert.equal(
    new Date(file.rows[0]!.hour).toISOString(),
    "2023-04-11T08:00:00.000Z",
    "stamped in Date, SAST",
  );
});

test("the build-up of yesterday fills hours and columns no file gave, and never replaces a value", (t) => {
  const dir = tempDir(t);
  const header = ["Date_Time_Hour_Beginning", "Thermal_Generation", "Nuclear_Generation"];
  const week = liveCsv(header, [["2023-04-25 10:00:00", 18_000.5, ""]]);
  const yesterday = liveCsv(header, [
    ["2023-04-25 10:00:00", 17_000.5, 1_850],
    ["2023-04-25 11:00:00", 17_100.5, 1_851],
  ]);
  ingestSources([{ name: "Station_Build_Up.csv", text: week, receivedAt: RECEIVED }], { dir });
  const summary = ingestSources(
    [{ name: "Station_Build_Up_Yesterday.csv", text: yesterday, receivedAt: RECEIVED, fill: true }],
    { dir },
  );
  assert.equal(summary.hoursAdded, 1);
  const store = createReadingStore({ dir });
  const value = (iso: string, column: string) =>
    store.reading(Date.parse(iso))![columnIndex(normalizeColumnName(column))];
  assert.equal(value("2023-04-25T08:00:00Z", "Thermal_Generation"), 18_000.5, "the 7-day file's value stays");
  assert.equal(
    value("2023-04-25T08:00:00Z", "Nuclear_Generation"),
    1_850,
    "a blank of the 7-day file is filled",
  );
  assert.equal(
    value("2023-04-25T09:00:00Z", "Thermal_Generation"),
    17_100.5,
    "an hour it did not give is filled",
  );
});

test("every dataset the catalog serves is read from portal files, each one the pull follows", () => {
  const followed = new Set(PORTAL_FILES.map((spec) => spec.name));
  for (const dataset of DOCUMENTED) {
    const files = sourcesOf(dataset);
    assert.ok(files.length > 0, dataset.id);
    for (const file of files)
      assert.ok(followed.has(file), `${dataset.id}: ${file} is not a file the pull follows`);
  }
});
