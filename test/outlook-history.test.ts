/**
 * The load-shedding outlook over the real downloads of the portal, replayed through a loopback
 * portal (`portal-history.ts`): the outlook as of each download reads that download and the ones
 * before it only. A later download changed (its load reduction wiped out) leaves every earlier
 * outlook byte for byte as it was, and changes its own.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { storeOutlooks } from "../scripts/outlook-store-evaluation.ts";
import { runScript, skipUnless, startServer, tempDir } from "./helpers.ts";
import { startPortal } from "./portal-stand-in.ts";
import { BUILD_UP, type Download, downloads, HISTORY, replayDownloads } from "./portal-history.ts";

const SKIP = skipUnless(
  existsSync(HISTORY),
  `the portal's downloads are not at ${HISTORY}; these tests need ../shared/data/eskom beside the checkout`,
);
const PATH = "/api/v1/features/load-shedding-outlook";

// The build-up with every load-reduction value 0: what a later download could have said instead.
function withoutLoadReduction(csv: Buffer): Buffer {
  const lines = csv.toString("utf8").split(/\r?\n/);
  const delimiter = lines[0]!.includes(";") ? ";" : ",";
  const at = lines[0]!.split(delimiter).findIndex((name) => /manual.load.reduction/i.test(name));
  assert.ok(at > 0, "the build-up has a load-reduction column");
  return Buffer.from(
    lines
      .map((line, i) => {
        if (i === 0 || line === "") return line;
        const cells = line.split(delimiter);
        cells[at] = "0";
        return cells.join(delimiter);
      })
      .join("\n"),
  );
}

// The outlook as of a minute after each download, by download, from a store the list was pulled into.
async function outlooks(t: import("node:test").TestContext, list: readonly Download[]) {
  const dir = tempDir(t);
  await replayDownloads(await startPortal(t), dir, list);
  const server = await startServer(t, dir);
  const out = new Map<string, string>();
  for (const download of list) {
    const asOf = new Date(download.at + 60_000).toISOString();
    const res = await server.get(`${PATH}?as_of=${asOf}&interval=1d`);
    assert.equal(res.status, 200, `${download.name}: ${await res.clone().text()}`);
    out.set(download.name, await res.text());
  }
  return out;
}

test(
  "the outlook as of each replayed download reads it and the earlier ones only: a later one changed leaves them byte for byte",
  { skip: SKIP },
  async (t) => {
    const list = downloads().filter((d) => d.at < Date.parse("2024-01-01T00:00:00Z"));
    const changed = list.findLast((d) => d.files.has(BUILD_UP))!;
    const altered = list.map((d) =>
      d === changed
        ? {
            ...d,
            files: new Map([...d.files].map(([f, b]) => [f, f === BUILD_UP ? withoutLoadReduction(b) : b])),
          }
        : d,
    );
    const [before, after] = [await outlooks(t, list), await outlooks(t, altered)];
    const earlier = list.filter((d) => d.at < changed.at);
    assert.ok(earlier.length >= 5, `${earlier.length} downloads before ${changed.name}`);
    for (const d of earlier) assert.equal(after.get(d.name), before.get(d.name), d.name);
    assert.notEqual(after.get(changed.name), before.get(changed.name), "its own outlook reads it");
    // Each outlook starts from the newest hour with load reduction its downloads held, days behind
    // (none when they held no such hour in the 60 days before: 2023-01-10 brought renewables alone).
    const newest = earlier.map(
      (d) =>
        (JSON.parse(before.get(d.name)!) as { meta: { newest_actual: string | null } }).meta.newest_actual,
    );
    assert.ok(newest.filter((n) => n !== null).length >= 3, JSON.stringify(newest));
    earlier.forEach((d, i) => assert.ok(newest[i] == null || Date.parse(newest[i]) <= d.at, d.name));
  },
);

test(
  "evaluate-outlook --store judges the replayed downloads with the chances the API issued as of each day",
  { skip: SKIP },
  async (t) => {
    const list = downloads().filter((d) => d.at < Date.parse("2024-01-01T00:00:00Z"));
    const dir = tempDir(t);
    await replayDownloads(await startPortal(t), dir, list);
    const outlooks = storeOutlooks(dir);
    const issues = [...new Set(outlooks.scored.map((e) => e.issuedAt))];
    assert.equal(issues.length, outlooks.issues);
    assert.ok(issues.length >= 3, `${issues.length} outlooks with a known outcome`);
    const server = await startServer(t, dir);
    for (const issuedAt of issues) {
      const res = await server.get(`${PATH}?as_of=${new Date(issuedAt).toISOString()}`);
      const served = new Map(
        ((await res.json()) as { data: { ts: string; probability: number; lead_h: number }[] }).data.map(
          (r) => [Date.parse(r.ts), r],
        ),
      );
      for (const e of outlooks.scored.filter((s) => s.issuedAt === issuedAt)) {
        const record = served.get(e.hour)!;
        assert.deepEqual([record.probability, record.lead_h], [Number(e.probability.toFixed(4)), e.lead]);
      }
    }
    const { code, stdout, stderr } = await runScript("scripts/evaluate-outlook.ts", ["--store", dir]);
    assert.equal(code, 0, stderr);
    assert.ok(
      stdout.startsWith("The load-shedding outlook (v2, as shipped), as of 06:00 SAST each day"),
      stdout,
    );
    assert.ok(stdout.includes(`${outlooks.scored.length} scored hours`), stdout);
    assert.match(stdout, /^\| 1-24 \| [\d,]+ \([\d,]+\) \|/m);
  },
);
