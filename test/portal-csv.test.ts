import { test } from "node:test";
import assert from "node:assert/strict";
import { parsePortalCsv, PortalCsvError } from "../src/source/portal-csv.ts";
import { columnIndex } from "../src/source/columns.ts";
import { exportCsv, liveCsv } from "./helpers.ts";

const utc = (iso: string) => Date.parse(iso);

function valuesByName(file: ReturnType<typeof parsePortalCsv>, row: number): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  file.columnNames.forEach((name, i) => {
    const v = file.rows[row]!.values[i]!;
    out[name] = Number.isNaN(v) ? null : v;
  });
  return out;
}

function refusal(text: string, name = "bad.csv"): PortalCsvError {
  try {
    parsePortalCsv(text, name);
  } catch (error) {
    assert.ok(error instanceof PortalCsvError, `expected a PortalCsvError, got ${String(error)}`);
    return error;
  }
  assert.fail("the file was accepted");
}

test("export rows re-join the unquoted decimal comma of Total UCLF+OCLF", () => {
  const text = exportCsv(
    ["Total UCLF", "Total OCLF", "Total UCLF+OCLF", "Non Comm Sentout"],
    [
      ["2018-04-01 12:00:00 AM", "8028.71", "275.907", "8304", "617", "383.0"],
      ["2018-04-01 01:00:00 AM", "7742.0", "276.0", "8018", "383.0"],
    ],
  );
  const file = parsePortalCsv(text, "ESK1.csv");
  assert.equal(file.format, "export");
  assert.deepEqual(valuesByName(file, 0), {
    total_uclf: 8028.71,
    total_oclf: 275.907,
    total_uclf_oclf: 8304.617,
    non_comm_sentout: 383,
  });
  // A whole-number value has no comma, so that row has the header's width.
  assert.equal(valuesByName(file, 1).total_uclf_oclf, 8018);
  assert.equal(valuesByName(file, 1).non_comm_sentout, 383);
});

test("export columns are matched by header name, in any order and any subset", () => {
  const text = exportCsv(["Wind", "Residual Demand"], [["2018-04-01 01:00:00 PM", "454.964", "20237.0"]]);
  const file = parsePortalCsv(text, "subset.csv");
  assert.deepEqual(file.columns, [columnIndex("wind"), columnIndex("residual_demand")]);
  assert.deepEqual(valuesByName(file, 0), { wind: 454.964, residual_demand: 20237 });
});

test("12-hour export stamps are SAST hour beginnings converted to UTC", () => {
  const text = exportCsv(
    ["Wind"],
    [
      ["2018-04-01 12:00:00 AM", 1],
      ["2018-04-01 01:00:00 AM", 2],
      ["2018-04-01 12:00:00 PM", 3],
      ["2018-04-01 11:00:00 PM", 4],
    ],
  );
  const hours = parsePortalCsv(text, "x.csv").rows.map((r) => new Date(r.hour).toISOString());
  assert.deepEqual(hours, [
    "2018-03-31T22:00:00.000Z",
    "2018-03-31T23:00:00.000Z",
    "2018-04-01T10:00:00.000Z",
    "2018-04-01T21:00:00.000Z",
  ]);
});

test("live files use ';', decimal commas, CRLF and 24-hour stamps", () => {
  const text = liveCsv(
    ["Date_Time_Hour_Beginning", "Thermal_Generation", "Manual_Load_Reduction_MLR", "Other_RE"],
    [
      ["2023-02-14 13:00:00", "16452,935000000001", "2217,5680000000002", "29,884"],
      ["2023-02-14 00:00:00", "-5,0650000000000004", "0", "8,3000000000000004E-2"],
    ],
  );
  const file = parsePortalCsv(text, "Station_Build_Up.csv");
  assert.equal(file.format, "live");
  assert.equal(file.rows[0]!.hour, utc("2023-02-14T11:00:00Z"));
  assert.deepEqual(valuesByName(file, 0), {
    thermal_generation: 16452.935000000001,
    manual_load_reduction_mlr: 2217.5680000000002,
    other_re: 29.884,
  });
  assert.equal(valuesByName(file, 1).other_re, 0.083);
  assert.equal(valuesByName(file, 1).thermal_generation, -5.0650000000000004);
});

test("the later live variant with ',' and '.' and underscore names parses as live", () => {
  const text =
    "Date_Time_Hour_Beginning,Wind,PV\n2026-01-01 05:00:00,8.3000000000000004E-2,0\n2026-01-01 06:00:00,0,0\n";
  const file = parsePortalCsv(text, "v2.csv");
  assert.equal(file.format, "live");
  assert.equal(file.rows.length, 1);
  assert.equal(file.skipped.placeholder, 1);
});

test("blank rows for unpublished hours are skipped and counted", () => {
  const text = liveCsv(
    ["Date_Time_Hour_Beginning", "Thermal_Generation", "Wind"],
    [
      ["2023-02-20 23:00:00", "", ""],
      ["2023-02-19 23:00:00", "17000", ""],
    ],
  );
  const file = parsePortalCsv(text, "x.csv");
  assert.equal(file.rowsRead, 2);
  assert.equal(file.rows.length, 1);
  assert.deepEqual(file.skipped, { blank: 1, placeholder: 0 });
  assert.deepEqual(valuesByName(file, 0), { thermal_generation: 17000, wind: null });
});

test("all-zero rows of a live renewables download are placeholders, not readings", () => {
  const text = liveCsv(
    ["Date Time Hour Beginning", "Wind", "PV", "CSP", "Other RE"],
    [
      ["2023-02-20 00:00:00", 0, 0, 0, 0],
      ["2023-02-19 23:00:00", "1135,713", 0, 0, "33,47"],
    ],
  );
  const file = parsePortalCsv(text, "Hourly_Generation.csv");
  assert.equal(file.format, "live");
  assert.deepEqual(file.skipped, { blank: 0, placeholder: 1 });
  assert.deepEqual(valuesByName(file, 0), { wind: 1135.713, pv: 0, csp: 0, other_re: 33.47 });
});

test("an all-zero export row is a reading: exports mark missing values with blanks", () => {
  const text = exportCsv(
    ["ILS Usage", "Manual Load_Reduction(MLR)"],
    [["2018-04-01 12:00:00 AM", "0.0", "0.0"]],
  );
  assert.equal(parsePortalCsv(text, "x.csv").rows.length, 1);
});

test("rows are kept in file order, sorted or not, with their source line", () => {
  const text = liveCsv(
    ["DateTimeKey", "Residual Forecast"],
    [
      ["2023-02-27 02:00:00", "19758"],
      ["2023-02-27 00:00:00", "19907"],
    ],
  );
  const file = parsePortalCsv(text, "demand.csv");
  assert.deepEqual(
    file.rows.map((r) => [r.line, new Date(r.hour).toISOString()]),
    [
      [2, "2023-02-27T00:00:00.000Z"],
      [3, "2023-02-26T22:00:00.000Z"],
    ],
  );
});

test("a byte-order mark and a missing final newline are accepted", () => {
  const file = parsePortalCsv("\ufeffDate Time Hour Beginning,Wind\n2018-04-01 12:00:00 AM,5.0", "x.csv");
  assert.equal(file.rows.length, 1);
});

test("an HTML error page saved as .csv is refused at line 1", () => {
  const error = refusal(
    "<!DOCTYPE html>\n<html><head><title>Error 404 - www.eskom.co.za</title></head></html>\n",
    "Station_Build_Up.csv",
  );
  assert.equal(error.line, 1);
  assert.equal(error.file, "Station_Build_Up.csv");
  assert.match(error.message, /^Cannot ingest line 1 of "Station_Build_Up.csv": this is an HTML page/);
});

test("an empty file is refused", () => {
  assert.match(refusal("").message, /the file is empty/);
  assert.match(refusal("\n\n").message, /the file is empty/);
});

test("an unknown header column is refused, naming it", () => {
  const error = refusal(exportCsv(["Wind", "Flux Capacitor"], [["2018-04-01 12:00:00 AM", 1, 2]]));
  assert.equal(error.line, 1);
  assert.match(error.message, /unknown column "Flux Capacitor"/);
});

test("a header without a timestamp column is refused", () => {
  assert.match(refusal("Wind,PV\n1,2\n").message, /no timestamp column/);
});

test("a header naming a column twice is refused", () => {
  assert.match(refusal("Date Time Hour Beginning,Wind,Wind\n").message, /column "Wind" appears twice/);
});

test("a single-column file is refused", () => {
  assert.match(
    refusal("just some text\nmore text\n").message,
    /line 1 of "bad.csv": the header names no columns/,
  );
});

test("a row with a bad timestamp is refused with its line number", () => {
  const text = exportCsv(
    ["Wind"],
    [
      ["2018-04-01 12:00:00 AM", 1],
      ["2018-04-31 01:00:00 AM", 2],
    ],
  );
  const error = refusal(text);
  assert.equal(error.line, 3);
  assert.match(error.message, /"2018-04-31 01:00:00 AM" is not a calendar date/);
});

test("a stamp that is not an hour beginning is refused", () => {
  assert.match(
    refusal(exportCsv(["Wind"], [["2018-04-01 01:30:00 AM", 1]])).message,
    /not the beginning of an hour/,
  );
  assert.match(
    refusal(exportCsv(["Wind"], [["2018-04-01 13:00:00 PM", 1]])).message,
    /no hour 13 on a 12-hour clock/,
  );
  assert.match(refusal(exportCsv(["Wind"], [["2018-04-01 24:00:00", 1]])).message, /no hour 24/);
  assert.match(
    refusal(exportCsv(["Wind"], [["yesterday", 1]])).message,
    /"yesterday" is not a portal timestamp/,
  );
});

test("a value that is not a number is refused with its line and column", () => {
  const error = refusal(exportCsv(["Wind", "PV"], [["2018-04-01 12:00:00 AM", "12", "n/a"]]));
  assert.equal(error.line, 2);
  assert.match(error.message, /column "PV" holds "n\/a", which is not a number/);
});

test("a row with the wrong number of fields is refused", () => {
  const error = refusal("Date Time Hour Beginning,Wind,PV\n2018-04-01 12:00:00 AM,1\n");
  assert.equal(error.line, 2);
  assert.match(error.message, /expected 3 fields as in the header, found 2/);
});

test("quoted fields may hold the delimiter", () => {
  const file = parsePortalCsv('Date Time Hour Beginning;Wind\r\n"2023-01-01 00:00:00";"1135,5"\r\n', "q.csv");
  assert.equal(file.rows[0]!.values[0], 1135.5);
});
