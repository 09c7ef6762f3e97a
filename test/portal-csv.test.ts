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
  assert.equal(file.delimiter, ",");
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
  assert.equal(file.delimiter, ";");
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
  assert.equal(file.delimiter, ",");
  assert.equal(file.rows.length, 1);
  assert.equal(file.rows[0]!.values[0], 0.083);
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
  assert.deepEqual(file.skipped, { blank: 1, placeholder: 0, uncertain: 0, future: 0, cut: 0 });
  assert.deepEqual(file.firstLines, { blank: 2 });
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
  assert.deepEqual(file.skipped, { blank: 0, placeholder: 1, uncertain: 0, future: 0, cut: 0 });
  assert.deepEqual(valuesByName(file, 0), { wind: 1135.713, pv: 0, csp: 0, other_re: 33.47 });
});

test("an all-zero row without a column that is never 0 is a reading (no load shedding that hour)", () => {
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

test("a byte-order mark is accepted; a missing final newline is not, since the last value may be cut", () => {
  const file = parsePortalCsv("\ufeffDate Time Hour Beginning,Wind\n2018-04-01 12:00:00 AM,5.0\n", "x.csv");
  assert.equal(file.rows.length, 1);
  const error = refusal("\ufeffDate Time Hour Beginning,Wind\n2018-04-01 12:00:00 AM,5.0");
  assert.equal(error.line, 2);
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

test("a ';' row with the wrong number of fields is refused", () => {
  const error = refusal("Date Time Hour Beginning;Wind;PV\n2023-04-01 00:00:00;1\n2023-04-01 01:00:00;1;2\n");
  assert.equal(error.line, 2);
  assert.match(error.message, /expected 3 fields as in the header, found 2/);
});

test("quoted fields may hold the delimiter", () => {
  const file = parsePortalCsv('Date Time Hour Beginning;Wind\r\n"2023-01-01 00:00:00";"1135,5"\r\n', "q.csv");
  assert.equal(file.rows[0]!.values[0], 1135.5);
});

test("a ',' file with unquoted decimal commas: rows of the header's width or with every value split are read", () => {
  const text = [
    "DateTimeKey,Residual Forecast,RSA Contracted Forecast,Residual Demand,RSA Contracted Demand",
    "2023-04-22 11:00:00,,,24594,579000000002,27439,82", // two blanks, two values split
    "2023-04-22 12:00:00,,,24299,27163", // nothing split: whole values
    "2023-04-22 13:00:00,20000,5,21000,25,21500,5,22000,75", // every value split
    "2023-04-22 14:00:00,,,24000,5,27000", // one of two values split: which one?
    "2023-04-22 15:00:00,,,24100,27100",
    "",
  ].join("\n");
  const file = parsePortalCsv(text, "System_hourly_actual_and_forecasted_demand.csv", {
    receivedAt: utc("2023-04-30T09:42:00Z"),
  });
  assert.deepEqual(valuesByName(file, 0), {
    residual_forecast: null,
    rsa_contracted_forecast: null,
    residual_demand: 24594.579000000002,
    rsa_contracted_demand: 27439.82,
  });
  assert.deepEqual(valuesByName(file, 1).residual_demand, 24299);
  assert.deepEqual(valuesByName(file, 2), {
    residual_forecast: 20000.5,
    rsa_contracted_forecast: 21000.25,
    residual_demand: 21500.5,
    rsa_contracted_demand: 22000.75,
  });
  assert.equal(file.rows.length, 4);
  assert.equal(file.skipped.uncertain, 1);
  // A negative value splits as "-1" and "733": its fraction has no sign.
  const negative = "Date_Time_Hour_Beginning,Eskom_OCGT_SCO_Pumping,Wind\n2023-04-21 00:00:00,-1,733,900,5\n";
  assert.deepEqual([...parsePortalCsv(negative, "b.csv").rows[0]!.values], [-1.733, 900.5]);
});

test("a row that cannot be read with certainty is skipped and counted, never guessed", () => {
  const header = "Date Time Hour Beginning,Wind,PV,CSP,Other RE";
  const rows = [
    "2023-03-01 00:00:00,1473,646,0,31,975000000000001,30,291", // 8 fields: 3 of 4 values split, unknowable which
    "2023-03-01 01:00:00,1376,2670000000001,0,28,655999999999999,29,504000000000001", // same
    "2023-03-01 02:00:00,1300,5,0,0,30,5", // 7 fields, 3 non-blank... 4 values non-blank: uncertain
    "2023-03-01 03:00:00,1200,25,1,5,2,75,30,125", // every value split: certain
    "2023-03-01 04:00:00,1100,0,0,29", // no value split: certain
    "2023-03-01 05:00:00,1000,0,0,28",
    "2023-03-01 06:00:00,900,0,0,27",
  ];
  const file = parsePortalCsv([header, ...rows].join("\n") + "\n", "Hourly_Generation.csv", {
    receivedAt: utc("2023-04-30T09:42:00Z"),
  });
  assert.equal(file.skipped.uncertain, 3);
  assert.deepEqual(
    file.rows.map((r) => [...r.values]),
    [
      [1200.25, 1.5, 2.75, 30.125],
      [1100, 0, 0, 29],
      [1000, 0, 0, 28],
      [900, 0, 0, 27],
    ],
  );
});

test("a file of which most rows cannot be read with certainty is refused whole", () => {
  const header = "Date Time Hour Beginning,Wind,PV,CSP,Other RE";
  const uncertain = (h: number) => `2023-03-01 ${String(h).padStart(2, "0")}:00:00,1473,646,0,31,975,30,291`;
  const certain = (h: number) => `2023-03-01 ${String(h).padStart(2, "0")}:00:00,1473,0,0,31`;
  const text = [header, uncertain(0), uncertain(1), certain(2), ""].join("\n");
  const error = refusal(text, "Hourly_Generation.csv");
  assert.match(
    error.message,
    /2 of its 3 rows with values cannot be read with certainty.*nothing of it is stored/,
  );
  // Half or fewer: read, and the uncertain rows counted.
  const half = [header, uncertain(0), certain(1), ""].join("\n");
  assert.equal(
    parsePortalCsv(half, "h.csv", { receivedAt: utc("2023-05-01T00:00:00Z") }).skipped.uncertain,
    1,
  );
});

test("an export row with one field more is read where the one split value must be", () => {
  const text = exportCsv(
    ["Total UCLF+OCLF", "Wind", "PV"],
    [
      ["2018-04-01 12:00:00 AM", "8304", "617", "450.5", "0.0"], // the export's own defect
      ["2018-04-01 01:00:00 AM", "", "450", "5", ""], // one value, split: it can only be Wind
      ["2018-04-01 02:00:00 AM", "8018", "450", "5", "0.0"], // Total UCLF+OCLF or Wind? Read as the export writes
    ],
  );
  const file = parsePortalCsv(text, "ESK1.csv", { receivedAt: utc("2018-05-01T00:00:00Z") });
  assert.deepEqual(valuesByName(file, 0), { total_uclf_oclf: 8304.617, wind: 450.5, pv: 0 });
  assert.deepEqual(valuesByName(file, 1), { total_uclf_oclf: null, wind: 450.5, pv: null });
  assert.deepEqual(valuesByName(file, 2), { total_uclf_oclf: 8018.45, wind: 5, pv: 0 });
});

test("all-zero rows are placeholders in every form, whatever the stamp column is called", () => {
  // The ',' form of 2023-05-05 names its stamp as the export does: it is still a placeholder.
  const text = [
    "Date Time Hour Beginning,Wind,PV,CSP,Other RE",
    "2023-05-04 23:00:00,1429.596,0,42.805,32.572000000000003",
    "2023-05-31 21:00:00,0,0,0,0",
    "",
  ].join("\n");
  const file = parsePortalCsv(text, "Hourly_Generation.csv", { receivedAt: utc("2023-05-05T12:00:00Z") });
  assert.equal(file.rows.length, 1);
  assert.equal(file.skipped.placeholder, 1);
  // An export row of zeros where a column is never 0 in a published hour: the same.
  const exported = exportCsv(["Residual Demand", "Wind"], [["2030-01-01 12:00:00 AM", "0.0", "0.0"]]);
  assert.equal(parsePortalCsv(exported, "x.csv").skipped.placeholder, 1);
});

test("no actual value is kept for an hour that begins more than an hour after the file was received", () => {
  const text = liveCsv(
    [
      "DateTimeKey",
      "Residual Forecast",
      "RSA Contracted Forecast",
      "Residual Demand",
      "RSA Contracted Demand",
    ],
    [
      ["2023-02-21 13:00:00", "", "", "25000", "26000"], // 11:00 UTC: an hour after receipt, kept
      ["2023-02-21 14:00:00", "24000", "25000", "25100", "26100"], // 12:00 UTC: forecast kept, actuals not
      ["2023-02-21 15:00:00", "", "", "25200", "26200"], // actuals only: nothing left
    ],
  );
  const file = parsePortalCsv(text, "System_hourly_actual_and_forecasted_demand.csv", {
    receivedAt: utc("2023-02-21T10:00:00Z"),
  });
  assert.equal(file.skipped.future, 2);
  assert.deepEqual(
    file.rows.map((r) => new Date(r.hour).toISOString()),
    ["2023-02-21T11:00:00.000Z", "2023-02-21T12:00:00.000Z"],
  );
  assert.deepEqual(valuesByName(file, 1), {
    residual_forecast: 24000,
    rsa_contracted_forecast: 25000,
    residual_demand: null,
    rsa_contracted_demand: null,
  });
});

test("a value outside its column's physical bounds refuses the file, naming the file, hour, field and value", () => {
  const text = liveCsv(
    ["Date_Time_Hour_Beginning", "Nuclear_Generation", "Wind"],
    [
      ["2023-04-16 00:00:00", "1830", "900"],
      ["2023-04-16 01:00:00", "22143,641", "900"],
    ],
  );
  const error = refusal(text, "Station_Build_Up.csv");
  assert.equal(error.line, 3);
  assert.match(error.message, /"Station_Build_Up.csv"/);
  assert.match(
    error.message,
    /hour 2023-04-16 01:00 SAST: "Nuclear_Generation" is 22143.641 MW, outside its bounds of -100 to 2000 MW \(Koeberg/,
  );
});

test("a file's timestamp columns must agree; 'Date' is the pumped-storage file's stamp", () => {
  const two = liveCsv(
    ["DateTimeKey", "Date Time Hour Beginning", "Total UCLF"],
    [["2022-10-05 00:00:00", "2022-10-05 01:00:00", "14597,1"]],
  );
  assert.match(refusal(two).message, /its timestamp columns name different hours/);
  const date = liveCsv(["Date", "Manual_Load_Reduction_MLR"], [["2022-10-10 03:00:00", "1558,9"]]);
  assert.equal(parsePortalCsv(date, "p.csv").rows[0]!.hour, utc("2022-10-10T01:00:00Z"));
});

test("an hour given twice with different values is uncertain; the same values twice are one row", () => {
  const text = liveCsv(
    ["Date_Time_Hour_Beginning", "Wind"],
    [
      ["2023-02-14 00:00:00", "1000"],
      ["2023-02-14 00:00:00", "1001"],
      ["2023-02-14 01:00:00", "900"],
      ["2023-02-14 01:00:00", "900"],
      ["2023-02-14 02:00:00", "800"],
      ["2023-02-14 03:00:00", "700"],
    ],
  );
  const file = parsePortalCsv(text, "x.csv");
  assert.equal(file.skipped.uncertain, 2);
  assert.deepEqual(
    file.rows.map((r) => r.values[0]),
    [900, 800, 700],
  );
});

test("a file whose last line is cut short (a download that ended early) is refused whole, naming the line", () => {
  const full = exportCsv(
    ["Residual Demand", "Thermal Generation"],
    [
      ["2024-01-01 12:00:00 AM", "20000.0", "18000.0"],
      ["2024-01-01 01:00:00 AM", "20100.0", "18100.0"],
      ["2024-01-01 02:00:00 AM", "20200.0", "18200.0"],
    ],
  ).trimEnd();
  // Cut inside its last value: the line has every field, but no line break.
  for (const cut of [full.slice(0, -3), full]) {
    const error = refusal(cut);
    assert.equal(error.line, 4, cut);
    assert.match(error.message, /line 4 of "bad.csv": the last line has no line break/);
  }
  // Cut before its last field: one field short, whether a line break follows or not.
  for (const cut of [full.slice(0, full.lastIndexOf(",")), `${full.slice(0, full.lastIndexOf(",") - 4)}\n`]) {
    const error = refusal(cut);
    assert.equal(error.line, 4, cut);
    assert.match(error.message, /line 4 of "bad.csv": the last line (is cut short|has no line break)/);
  }
  assert.match(
    refusal(`${full.slice(0, full.lastIndexOf(","))}\n`).message,
    /the last line is cut short \(2 of the header's 3 fields\)/,
  );
  assert.equal(parsePortalCsv(`${full}\n`, "x.csv").rows.length, 3, "the whole file is read");
  // The same in the live ";" form.
  const live = liveCsv(
    ["Date_Time_Hour_Beginning", "Thermal_Generation", "Wind"],
    [
      ["2023-02-19 22:00:00", "17000", "900"],
      ["2023-02-19 23:00:00", "17100", "950"],
    ],
  ).trimEnd();
  assert.equal(refusal(`${live.slice(0, live.lastIndexOf(";"))}\r\n`).line, 3);
});

test("a short line inside a ',' file is skipped as cut and counted with its line; in a ';' file it refuses the file", () => {
  const text = liveCsv(
    ["Date Time Hour Beginning", "Wind", "PV", "CSP", "Other RE"],
    [
      ["2023-02-19 21:00:00", "1100.5", "0", "0", "33.4"],
      ["2023-02-19 22:00:00", "1100.5"],
      ["2023-02-19 23:00:00", "1135.7", "0", "0", "33.5"],
    ],
  ).replaceAll(";", ",");
  const file = parsePortalCsv(text, "Hourly_Generation.csv");
  assert.equal(file.rows.length, 2);
  assert.equal(file.skipped.cut, 1);
  assert.deepEqual(file.firstLines, { cut: 3 });
  const semicolons = liveCsv(
    ["Date_Time_Hour_Beginning", "Thermal_Generation", "Wind"],
    [
      ["2023-02-19 22:00:00", "17000"],
      ["2023-02-19 23:00:00", "17100", "950"],
    ],
  );
  assert.equal(refusal(semicolons).line, 2);
});
