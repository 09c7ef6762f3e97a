/**
 * The PowerBI answer decoder (src/source/powerbi-answer.ts) on real `querydata` answers of public
 * reports, captured by others and kept in ../shared/data/powerbi/ with their provenance
 * (PROVENANCE.txt: the row counts and values below are its), and on each of them broken the ways a
 * cut or changed answer breaks: every one refused whole, saying where.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AnswerRow, decodeAnswer, PowerBiAnswerError } from "../src/source/powerbi-answer.ts";
import { skipUnless } from "./helpers.ts";

const CAPTURES = join(import.meta.dirname, "..", "..", "shared", "data", "powerbi");
const SKIP = skipUnless(
  existsSync(CAPTURES),
  `real PowerBI answers not found at ${CAPTURES}; these tests need ../shared/data/powerbi beside the checkout`,
);

const read = (name: string): unknown => JSON.parse(readFileSync(join(CAPTURES, name), "utf8"));
const decode = (name: string) => decodeAnswer(readFileSync(join(CAPTURES, name), "utf8"));
const count = (rows: readonly AnswerRow[], member: string) => rows.filter((r) => r.member === member).length;

/** Every capture with the rows it holds per list, as PROVENANCE.txt counts them. */
const CAPTURED: Record<string, Record<string, number>> = {
  "ncdot_durham_crash_dates_querydata.json": { DM0: 1, DM1: 100 },
  "semad_mg_tacs_querydata_response.json": { DM0: 50 },
  "ph_fmr_inventory_querydata_response.json": { DM0: 799 },
  "ph_f2c2_clusters_querydata_response.json": { DM0: 164 },
  "ph_rsbsa_municipality_crop_querydata_response.json": { DM0: 4501 },
  "ph_soil_r02_azureMap_querydata_response.json": {},
  "ph_soil_r02_pivotTable_querydata_response.json": { DM0: 1 },
  "ccee_pld_horario_daily_by_submarket_querydata_response.json": { DM0: 60 },
  "za_treasury_bas_transactions_page0001_querydata_response.json": { DM1: 499 },
  "no_akvafakta_forstatistikk_maned_querydata_response.json": { DM0: 2215 },
  "ar_inta_chicharrita_querydata_4_response.json": { DM0: 500 },
  "ar_inta_chicharrita_querydata_1_response.json": { DM0: 100 },
  "us_oh_sos_absentee_querydata_response.json": { DM0: 808 },
  "us_ks_sos_advance_voting_querydata_response.json": { DM0: 16 },
};

test(
  "every real capture decodes whole: each row fills its schema, the counts are the provenance's",
  { skip: SKIP },
  () => {
    for (const [name, counts] of Object.entries(CAPTURED)) {
      const answer = decode(name);
      assert.ok(answer.rows.length > 0, name);
      for (const [member, n] of Object.entries(counts))
        assert.equal(count(answer.rows, member), n, `${name} ${member}`);
      // Every column the descriptor names is one the rows or totals carry, or a subtotal's.
      assert.ok(answer.columns.length > 0, `${name} names its columns`);
    }
  },
);

test(
  "repeats, nulls, dictionaries and datetimes: the Ohio and Kansas answers as their repositories' tests read them",
  { skip: SKIP },
  () => {
    const ohio = decode("us_oh_sos_absentee_querydata_response.json");
    assert.deepEqual(
      ohio.columns.map((c) => c.key),
      ["G0", "G1", "G2", "M0", "M1", "M2", "M3"],
    );
    assert.equal(ohio.columns[4]!.name, "Sum(absentee v_detailed_grouped.BALLOTS_RECEIVED_INCL_EIP)");
    const general = ohio.rows.filter((r) => r.values.G0 === "2024 NOV GENERAL");
    const sum = (rows: readonly AnswerRow[], key: string) =>
      rows.reduce((s, r) => s + (r.values[key] as number), 0);
    assert.deepEqual(
      ["M1", "M2", "M3"].map((k) => sum(general, k)),
      [2262963, 985715, 915295],
    );
    const cuyahoga = general.filter((r) => r.values.G1 === "CUYAHOGA");
    assert.ok([178821, 122302].every((n) => ["M0", "M1", "M2", "M3"].some((k) => sum(cuyahoga, k) === n)));
    assert.ok(
      ohio.rows.every((r) => typeof r.values.G2 === "number"),
      "a repeated datetime is the row before's",
    );
    assert.equal(ohio.complete, true);

    const kansas = decode("us_ks_sos_advance_voting_querydata_response.json");
    assert.deepEqual(kansas.rows[0]!.values, { G0: 1784073600000, M0: 43492, M1: 94, M2: 0 });
  },
);

test(
  "nested rows carry their parents' values; a matrix its cells; a cut window its restart token",
  { skip: SKIP },
  () => {
    const durham = decode("ncdot_durham_crash_dates_querydata.json");
    const crashes = durham.rows.filter((r) => r.member === "DM1");
    assert.ok(crashes.every((r) => r.values.G0 === "DURHAM" && typeof r.values.G1 === "number"));
    assert.equal(durham.complete, false);
    assert.equal(durham.restartTokens, undefined, "cut without a token");

    const ccee = decode("ccee_pld_horario_daily_by_submarket_querydata_response.json");
    assert.ok(ccee.rows.every((r) => r.cells?.length === 4));
    assert.equal(ccee.secondary.length, 4);
    assert.deepEqual(ccee.totals, { A0: 240, A1: 60, A2: 4 });
    assert.deepEqual(
      ccee.rows[10]!.cells!.map((c) => c.M0),
      ["150.38541666666666", "150.38541666666666", "150.38083333333333", "150.38458333333332"],
    );

    const semad = decode("semad_mg_tacs_querydata_response.json");
    assert.equal(semad.complete, false);
    assert.equal(semad.restartTokens![0]!.length, 5);
    assert.ok(
      semad.rows.every((r) => typeof r.values.G0 === "string"),
      "coded text looked up",
    );

    const pivot = decode("ph_soil_r02_pivotTable_querydata_response.json");
    const quirino = pivot.rows.filter((r) => r.member === "DM3" && r.values.G0 === "Quirino");
    assert.equal(quirino.length, 1);
    assert.equal(
      quirino[0]!.values.G1,
      pivot.rows.filter((r) => r.member === "DM3").at(-2)!.values.G1,
      "R repeats the list's row before, under another parent",
    );

    assert.match(
      decode("no_akvafakta_forstatistikk_maned_querydata_response.json").message!,
      /SpecifiedLimitExceedsMaxIntersections/,
    );
  },
);

/** The Ohio answer, changed by `change`. */
function broken(change: (rows: Record<string, unknown>[], answer: Record<string, any>) => void): string {
  const answer = read("us_oh_sos_absentee_querydata_response.json") as Record<string, any>;
  change(answer.results[0].result.data.dsr.DS[0].PH[0].DM0, answer);
  return JSON.stringify(answer);
}

test("a broken answer is refused whole, saying where", { skip: SKIP }, () => {
  const text = readFileSync(join(CAPTURES, "us_oh_sos_absentee_querydata_response.json"), "utf8");
  const refusals: [string, string, RegExp][] = [
    ["cut", text.slice(0, text.length / 2), /is not JSON/],
    [
      "HTML",
      "<!DOCTYPE html><html><body>Service unavailable</body></html>",
      /is not JSON \(it begins "<!DOCTYPE html>/,
    ],
    ["an error", JSON.stringify({ error: { code: "TokenExpired" } }), /is an error: .*TokenExpired/],
    ["no data", JSON.stringify({ results: [] }), /has no results\[0\]\.result\.data/],
    [
      "a value too many",
      broken((rows) => (rows[3]!.C as unknown[]).push(7)),
      /DM0 row 3: C holds 7 values where the schema, R and Ø leave 6/,
    ],
    [
      "a value too few",
      broken((rows) => (rows[1]!.C as unknown[]).pop()),
      /DM0 row 1: C holds 4 values where .* leave 5/,
    ],
    ["R with Ø", broken((rows) => (rows[1]!["Ø"] = 1)), /DM0 row 1: R and Ø mark the same column/],
    ["R first", broken((rows) => (rows[0]!.R = 2)), /DM0 row 0: R repeats a row before the first/],
    ["R past the schema", broken((rows) => (rows[1]!.R = 1 << 9)), /R names a column past the schema's 7/],
    [
      "a code outside",
      broken((rows) => ((rows[2]!.C as unknown[])[0] = 99)),
      /DM0 row 2: G1 has the code 99, outside D1's 88/,
    ],
    [
      "a datetime in text",
      broken((rows) => ((rows[0]!.C as unknown[])[2] = "2023-11-08")),
      /G2 is a datetime, and "2023-11-08" is not epoch milliseconds/,
    ],
    ["no schema", broken((rows) => delete rows[0]!.S), /DM0 row 0: has no schema S/],
    [
      "no descriptor",
      broken((_rows, answer) => delete answer.results[0].result.data.descriptor),
      /has no descriptor/,
    ],
  ];
  for (const [what, answer, why] of refusals) {
    assert.throws(
      () => decodeAnswer(answer),
      (error: Error) => error instanceof PowerBiAnswerError && why.test(error.message),
      what,
    );
  }
});
