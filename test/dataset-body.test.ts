/**
 * A dataset body rendered in pieces (src/http/dataset-body.ts) is exactly the body of the whole
 * range, lets the event loop run between its pieces, and is refused when the store changes under
 * it; and the render slots bound how many run at once.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { DatasetBody, StaleBodyError } from "../src/http/dataset-body.ts";
import { pieces, readingsReader } from "../src/datasets/readings-reader.ts";
import { createRenderSlots } from "../src/http/render-slots.ts";
import { recordsToCsv } from "../src/http/csv.ts";
import { createRecordCache } from "../src/records/record-cache.ts";
import { createReadingStore } from "../src/store/reading-store.ts";
import { DATASETS, isHourly } from "../src/datasets/registry.ts";
const HOURLY_DATASETS = DATASETS.filter(isHourly);
import { generateSampleExport } from "../src/sample/sample-export.ts";
import type { ParsedRange } from "../src/http/range-query.ts";
import { ingestTexts, tempDir } from "./helpers.ts";

const at = (iso: string) => Date.parse(iso);

function range(start: string, end: string, interval: "1h" | "1d", options = {}): ParsedRange {
  return {
    start: at(start),
    end: at(end),
    interval,
    options,
    startFractional: false,
    endFractional: false,
    asked: interval,
    zone: "UTC",
    agg: "mean",
    columns: undefined,
  };
}

test("a range is cut at whole UTC days: a day of hours, or 31 days, a piece", () => {
  const hourly = pieces(range("2025-01-01T05:00:00Z", "2025-01-03T03:00:00Z", "1h"));
  assert.deepEqual(
    hourly.map((p) => [new Date(p.start).toISOString(), new Date(p.end).toISOString()]),
    [
      ["2025-01-01T05:00:00.000Z", "2025-01-02T00:00:00.000Z"],
      ["2025-01-02T00:00:00.000Z", "2025-01-03T00:00:00.000Z"],
      ["2025-01-03T00:00:00.000Z", "2025-01-03T03:00:00.000Z"],
    ],
  );
  // A daily range's pieces cover its days: those whose 00:00 lies in [start, end).
  const daily = pieces(range("2025-01-01T05:00:00Z", "2025-03-01T00:00:00Z", "1d"));
  assert.equal(new Date(daily[0]!.start).toISOString(), "2025-01-02T00:00:00.000Z");
  assert.equal(new Date(daily[0]!.end).toISOString(), "2025-02-02T00:00:00.000Z");
  assert.equal(daily.at(-1)!.end, at("2025-03-01T00:00:00Z"));
  assert.equal(daily.length, 2);
});

test("every dataset's body in pieces is the body of the whole range, JSON and CSV, now and as of then", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "a.csv": generateSampleExport({ firstDay: "2025-01-01", days: 120 }) });
  const store = createReadingStore({ dir });
  const now = Date.now();
  const slots = createRenderSlots(2);
  // Grid stress in both versions: each has its own fields.
  const cases = HOURLY_DATASETS.flatMap((dataset) =>
    dataset.id.includes("stress")
      ? [
          { dataset, options: { components: true } },
          { dataset, options: { components: true, version: "v1" } },
        ]
      : [{ dataset, options: {} }],
  );
  for (const { dataset, options } of cases) {
    for (const interval of ["1h", "1d"] as const) {
      const r = range("2025-01-03T07:00:00Z", "2025-04-20T13:00:00Z", interval, options);
      const whole = dataset.records(store, r);
      assert.ok(whole.length > 50);
      for (const format of ["json", "csv"] as const) {
        for (const asOf of [undefined, now]) {
          const snapshot = readingsReader(
            dataset,
            store,
            createRecordCache({ maxBytes: 1 << 24 }),
          ).snapshot();
          const body = new DatasetBody({
            range: r,
            format,
            view: snapshot.view(asOf),
            changed: () => snapshot.changed?.() ?? false,
            meta: () => '{"m":1}',
            slots,
            fields: dataset.servedFields?.({ interval, options }) ?? dataset.fields[interval],
          });
          const expected =
            format === "json"
              ? `{"meta":{"m":1},"data":[${whole.map((rec) => JSON.stringify(rec)).join(",")}]}`
              : recordsToCsv(
                  whole,
                  dataset.servedFields?.({ interval, options }) ?? dataset.fields[interval],
                  (f) => (options as Record<string, unknown>)[f.name] === true,
                );
          assert.equal(
            (await body.render()).toString("utf8"),
            expected,
            `${dataset.id} ${interval} ${format} ${asOf === undefined ? "" : "as_of"}`,
          );
        }
      }
    }
  }
});

test("rendering yields to the event loop between pieces, and a change of the store meanwhile refuses the body", async (t) => {
  const dir = tempDir(t);
  ingestTexts(dir, { "a.csv": generateSampleExport({ firstDay: "2025-01-01", days: 60 }) });
  const store = createReadingStore({ dir });
  const dataset = HOURLY_DATASETS[0]!;
  const make = (version: number) => {
    const view = readingsReader(dataset, store, createRecordCache({ maxBytes: 1 << 24 }))
      .snapshot()
      .view(undefined);
    return new DatasetBody({
      range: range("2025-01-01T00:00:00Z", "2025-03-01T00:00:00Z", "1h"),
      format: "json",
      view,
      changed: () => store.changedSince(version),
      meta: () => "{}",
      slots: createRenderSlots(1),
      fields: dataset.fields["1h"],
    });
  };
  let turns = 0;
  let rendering = true;
  const count = () => rendering && (turns++, setImmediate(count));
  setImmediate(count);
  await make(store.refresh().version).render();
  rendering = false;
  assert.ok(turns >= 50, `the loop ran ${turns} times while 59 pieces were rendered`);
  await assert.rejects(make(store.refresh().version - 1).render(), StaleBodyError);
});

test("render slots run at most their number at once, the rest in order", async () => {
  const slots = createRenderSlots(2);
  let running = 0;
  let most = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(i);
        running--;
      }),
    ),
  );
  assert.equal(most, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
  // A failing piece of work frees its slot.
  await assert.rejects(
    slots.run(() => Promise.reject(new Error("x"))),
    /x/,
  );
  assert.equal(await slots.run(() => Promise.resolve(7)), 7);
});
