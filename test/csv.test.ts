/** `src/http/csv.ts`: records as RFC 4180 CSV. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FieldDoc } from "../src/records/dataset.ts";
import { recordsToCsv } from "../src/http/csv.ts";

const FIELDS: FieldDoc[] = [
  { name: "ts", type: "string", description: "" },
  { name: "label", type: "string", nullable: true, description: "" },
  { name: "mw", type: "number", nullable: true, description: "" },
  {
    name: "parts",
    type: "object",
    optional: true,
    description: "",
    properties: [
      { name: "a", type: "number", description: "" },
      { name: "b", type: "number", description: "" },
    ],
  },
];

test("a header row, empty cells for nulls, CRLF line ends, quotes only where needed", () => {
  const csv = recordsToCsv(
    [
      { ts: "2024-01-01T00:00:00+00:00", label: 'say "hi", twice', mw: 1.5 },
      { ts: "2024-01-01T01:00:00+00:00", label: null, mw: null },
    ],
    FIELDS,
    () => false,
  );
  assert.equal(
    csv,
    'ts,label,mw\r\n2024-01-01T00:00:00+00:00,"say ""hi"", twice",1.5\r\n2024-01-01T01:00:00+00:00,,\r\n',
  );
});

test("an included object field becomes one column per member; a missing object gives empty cells", () => {
  const csv = recordsToCsv(
    [
      { ts: "t1", label: "x", mw: 0, parts: { a: 0.25, b: null } },
      { ts: "t2", label: "y\nz", mw: -2 },
    ],
    FIELDS,
  );
  assert.equal(csv, 'ts,label,mw,parts.a,parts.b\r\nt1,x,0,0.25,\r\nt2,"y\nz",-2,,\r\n');
});

test("no records give the header alone", () => {
  assert.equal(recordsToCsv([], FIELDS.slice(0, 2)), "ts,label\r\n");
});
