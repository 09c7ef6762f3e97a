/**
 * `pull` against a stand-in for the Eskom portal on loopback (test/portal-stand-in.ts), serving the
 * real snapshot files from ../shared/data/eskom/portal_snapshot_2023-02-21/ behind graph pages.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { TestContext } from "node:test";
import { pendingDeliveries } from "../src/webhooks/outbox.ts";
import { describe, pullPortal } from "../src/pull/pull.ts";
import { portalFile } from "../src/pull/portal-files.ts";

/** The three files the tests' downloads hold of the portal's eight. */
const THREE_FILES = [
  "Station_Build_Up.csv",
  "System_hourly_actual_and_forecasted_demand.csv",
  "Hourly_Generation.csv",
];
import { lastSuccessfulPull, readPullState } from "../src/pull/pull-state.ts";
import { readAttempts, sha256Of } from "../src/pull/archive.ts";
import {
  freePort,
  REAL_DATA_DIR,
  runScript,
  skipUnless,
  snapshotDir,
  startServer,
  tempDir,
  subscribe,
} from "./helpers.ts";
import { type Behaviour, startPortal } from "./portal-stand-in.ts";

const SNAPSHOT = join(REAL_DATA_DIR, "portal_snapshot_2023-02-21");
const SKIP = skipUnless(
  existsSync(SNAPSHOT),
  `the portal snapshot is not at ${SNAPSHOT}; these tests need ../shared/data/eskom beside the checkout`,
);
// 2023-02-21 12:00 SAST, when the snapshot was taken.
const NOW = Date.parse("2023-02-21T10:00:00Z");
const FAST = { timeoutMs: 2000, attempts: 3, backoffMs: 5, maxBackoffMs: 20 };
const DEMAND = "System_hourly_actual_and_forecasted_demand.csv";
const SPECS = THREE_FILES.map((name) => portalFile(name)!);

const snapshotFile = (file: string) => readFileSync(join(SNAPSHOT, file));

/** The stand-in with the snapshot's three files published in the 2023/02 folder. */
async function portal(t: TestContext, folder = "2023/02") {
  const stand = await startPortal(t);
  for (const file of THREE_FILES) stand.publish(file, snapshotFile(file), { folder });
  return stand;
}

function pull(dir: string, root: string, now = NOW, files = SPECS) {
  return pullPortal({ dir, root, files, policy: FAST, now: () => now });
}

/** The SAST stamp and a column's value of a live-format row, read straight from the raw CSV. */
function rawValue(file: string, stamp: string, column: string): number {
  const lines = snapshotFile(file).toString("utf8").split("\r\n");
  const header = lines[0]!.split(";");
  const row = lines.find((l) => l.startsWith(stamp + ";"))!.split(";");
  return Number(row[header.indexOf(column)]!.replace(",", "."));
}

/** The store's data files (not the pull's own records), for "unchanged" checks. */
function storeFiles(dir: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(snapshotDir(dir)).filter(
      ([name]) => name.startsWith("readings/") || name.startsWith("revisions/") || name === "manifest.json",
    ),
  );
}

test(
  "a first pull follows each page's link and stores the files: served values equal the raw CSV",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    const result = await pull(dir, stand.root);
    assert.equal(result.ok, true, JSON.stringify(result.files));
    const build = result.files.find((f) => f.file === "Station_Build_Up.csv")!;
    assert.equal(build.result, "ingested");
    assert.equal(build.link, `${stand.root}wp-content/uploads/2023/02/Station_Build_Up.csv`);
    assert.equal(build.hoursAdded, 144, "the 144 published hours; the 24 blank ones are skipped");
    assert.equal(build.skipped!.blank, 24);
    const renewables = result.files.find((f) => f.file === "Hourly_Generation.csv")!;
    assert.equal(renewables.skipped!.placeholder, 216, "future hours written as zeros");
    assert.ok(lastSuccessfulPull(dir)! >= NOW - 1000);
    assert.ok(
      stand.requests.some((r) => r.path === stand.pagePath("Station_Build_Up.csv")),
      "the graph page was read",
    );

    const server = await startServer(t, dir);
    // 2023-02-14 00:00 SAST is 2023-02-13 22:00 UTC.
    const res = await server.get(
      "/api/v1/generation/mix?start=2023-02-13T22:00:00Z&end=2023-02-13T23:00:00Z",
    );
    const [record] = ((await res.json()) as { data: Record<string, number>[] }).data;
    const round = (n: number) => Math.round(n * 1000) / 1000;
    assert.equal(
      record!.thermal_mw,
      round(rawValue("Station_Build_Up.csv", "2023-02-14 00:00:00", "Thermal_Generation")),
    );
    assert.equal(record!.wind_mw, round(rawValue("Hourly_Generation.csv", "2023-02-14 00:00:00", "Wind")));
    const state = await server.get(
      "/api/v1/grid/system-state?start=2023-02-13T22:00:00Z&end=2023-02-13T23:00:00Z",
    );
    const [s] = ((await state.json()) as { data: Record<string, number>[] }).data;
    assert.equal(s!.residual_demand_mw, round(rawValue(DEMAND, "2023-02-14 00:00:00", "Residual Demand")));
  },
);

test(
  "a repeat pull sends the validators, gets 304 for every file, and changes no stored file",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await pull(dir, stand.root);
    const before = storeFiles(dir);
    const state = readFileSync(join(dir, "pull-state.json"), "utf8");
    stand.requests.length = 0;
    const again = await pull(dir, stand.root, NOW + 3_600_000);
    assert.equal(again.ok, true);
    assert.deepEqual(
      again.files.map((f) => f.result),
      ["not-modified", "not-modified", "not-modified"],
    );
    const uploads = stand.requests.filter((r) => r.path.includes("/wp-content/uploads/"));
    assert.equal(uploads.length, 3);
    assert.ok(uploads.every((r) => r.ifNoneMatch !== undefined && r.ifModifiedSince !== undefined));
    assert.deepEqual(storeFiles(dir), before, "no stored file changed");
    // Nothing new to remember but that each link still answers (for /healthz's freshness).
    const answeredAt = new Date(NOW + 3_600_000).toISOString();
    const files = JSON.parse(state).files as Record<string, { answered?: string }>;
    for (const file of Object.values(files)) file.answered = answeredAt;
    assert.deepEqual(readPullState(dir).files, files, "nothing new to remember");
    assert.deepEqual(JSON.parse(readFileSync(join(dir, "pull-runs.json"), "utf8")), { ok: 2, failed: 0 });
    assert.equal(lastSuccessfulPull(dir), NOW + 3_600_000, "the check itself is recorded (by time only)");
    const { attempts } = readAttempts(join(dir, "archive"));
    assert.deepEqual(
      attempts.map((a) => a.outcome),
      ["ingested", "ingested", "ingested", "not-modified", "not-modified", "not-modified"],
      "every attempt is logged",
    );
  },
);

test(
  "every body received is kept once, compressed, by its hash, and each attempt logged in full",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await pull(dir, stand.root);
    // The portal rewrites a file with the same bytes under a new name: the same body, kept once.
    stand.publish("Station_Build_Up.csv", snapshotFile("Station_Build_Up.csv"), {
      name: "Station_Build_Up-1.csv",
    });
    const again = await pull(dir, stand.root, NOW + 3_600_000);
    const build = again.files.find((f) => f.file === "Station_Build_Up.csv")!;
    assert.equal(build.result, "unchanged", "the same content is not ingested twice");
    assert.deepEqual(build.linkChanged, {
      from: `${stand.root}wp-content/uploads/2023/02/Station_Build_Up.csv`,
      to: `${stand.root}wp-content/uploads/2023/02/Station_Build_Up-1.csv`,
    });
    const bodies = readdirSync(join(dir, "archive", "bodies")).sort();
    const expected = THREE_FILES.map((f) => `${sha256Of(snapshotFile(f))}.gz`).sort();
    assert.deepEqual(bodies, expected);
    for (const name of bodies) {
      const body = gunzipSync(readFileSync(join(dir, "archive", "bodies", name)));
      assert.equal(`${sha256Of(body)}.gz`, name, "the body is whole");
    }
    const first = readAttempts(join(dir, "archive")).attempts[0]!;
    assert.equal(first.file, "Station_Build_Up.csv");
    assert.equal(first.page, `${stand.root}supply-side/station-build-up-for-the-last-7-days/`);
    assert.equal(first.page_status, 200);
    assert.equal(first.link, `${stand.root}wp-content/uploads/2023/02/Station_Build_Up.csv`);
    assert.equal(first.status, 200);
    assert.match(first.etag!, /^"[0-9a-f]{16}"$/);
    assert.equal(first.last_modified, "Tue, 21 Feb 2023 09:00:00 GMT");
    assert.equal(first.sha256, sha256Of(snapshotFile("Station_Build_Up.csv")));
    assert.equal(first.outcome, "ingested");
    assert.deepEqual(first.rows, {
      read: 168,
      stored: 144,
      blank: 24,
      placeholder: 0,
      uncertain: 0,
      future: 0,
      cut: 0,
    });
    assert.equal(first.hours_added, 144);
  },
);

test(
  "a revised value is served at once with a new ETag, and as_of before it still gives the old one",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await pull(dir, stand.root);
    const server = await startServer(t, dir);
    const path = "/api/v1/grid/system-state?start=2023-02-13T22:00:00Z&end=2023-02-14T00:00:00Z";
    const first = await server.get(path);
    const oldTag = first.headers.get("etag");
    const oldValue = ((await first.json()) as { data: { residual_demand_mw: number }[] }).data[0]!
      .residual_demand_mw;

    const text = snapshotFile(DEMAND).toString("utf8");
    const line = text.split("\r\n").find((l) => l.startsWith("2023-02-14 00:00:00;"))!;
    const cells = line.split(";");
    cells[3] = "20000,5"; // Residual Demand, corrected by the portal
    // And the next hour's actual is published: 2023-02-20 00:00 SAST had only its forecast.
    const next = "2023-02-20 00:00:00;20060;21938,544000000002;;";
    const published = "2023-02-20 00:00:00;20060;21938,544000000002;19876,5;21700";
    stand.publish(DEMAND, text.replace(line, cells.join(";")).replace(next, published));
    const before = (await (await server.get(path)).json()) as { meta: { last_available: string } };
    assert.equal(before.meta.last_available, "2023-02-19T21:00:00+00:00");
    const later = NOW + 3_600_000;
    const result = await pull(dir, stand.root, later);
    const demand = result.files.find((f) => f.file === DEMAND)!;
    assert.equal(demand.hoursRevised, 2, "a corrected value, and an actual added to a forecast-only hour");
    const fresh = (await (await server.get(path)).json()) as { meta: { last_available: string } };
    assert.equal(
      fresh.meta.last_available,
      "2023-02-19T22:00:00+00:00",
      "the running server sees the new hour",
    );
    const now = await server.get(path);
    assert.notEqual(now.headers.get("etag"), oldTag);
    assert.equal(
      ((await now.json()) as { data: { residual_demand_mw: number }[] }).data[0]!.residual_demand_mw,
      20000.5,
    );
    const then = await server.get(`${path}&as_of=${new Date(later - 1).toISOString()}`);
    assert.equal(
      ((await then.json()) as { data: { residual_demand_mw: number }[] }).data[0]!.residual_demand_mw,
      oldValue,
    );
  },
);

test(
  "an HTML page with 200, an empty body, a cut body or a header-only file is refused; the store stays; the rest go in",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await pull(dir, stand.root);
    const html = "<!DOCTYPE html><html><head><title>Error 404 - www.eskom.co.za</title></head></html>";
    const header = snapshotFile(DEMAND).toString("utf8").split("\r\n")[0] + "\r\n";
    const cases: [string, Behaviour, "refused" | "failed", RegExp][] = [
      [
        "an HTML page",
        (_q, r) => void r.writeHead(200, { "Content-Type": "text/csv" }).end(html),
        "refused",
        /HTML page/,
      ],
      [
        "an empty body",
        (_q, r) => void r.writeHead(200, { "Content-Type": "text/csv", "Content-Length": 0 }).end(),
        "refused",
        /empty body/,
      ],
      [
        "a cut body",
        (_q, r) => {
          const body = snapshotFile(DEMAND);
          r.writeHead(200, { "Content-Type": "text/csv", "Content-Length": body.length });
          r.write(body.subarray(0, 500));
          setTimeout(() => r.destroy(), 20);
        },
        "failed",
        /shorter than its Content-Length|closed before the body was complete/,
      ],
      [
        "a header-only file",
        (_q, r) => void r.writeHead(200, { "Content-Type": "text/csv" }).end(header),
        "failed",
        /it holds its header row only since .*: it holds its header row only: the portal published no hours/,
      ],
    ];
    for (const [what, behaviour, result, message] of cases) {
      const before = storeFiles(dir);
      stand.on("/wp-content/uploads/2023/02/System_hourly", (q, r) => (behaviour(q, r), true));
      const pulled = await pull(dir, stand.root);
      assert.equal(pulled.ok, false, what);
      const demand = pulled.files.find((f) => f.file === DEMAND)!;
      assert.equal(demand.result, result, what);
      assert.match(demand.error!, message, what);
      assert.deepEqual(storeFiles(dir), before, `${what}: the store is unchanged`);
      assert.deepEqual(
        pulled.files.filter((f) => f.file !== DEMAND).map((f) => f.result),
        ["not-modified", "not-modified"],
        "the other files are still pulled (and found current)",
      );
      const state = readPullState(dir).files[DEMAND]!;
      if (what === "a header-only file") assert.equal(state.gone!.why, "empty", "gone, not refused");
      else assert.equal(state.refused!.kind, result === "failed" ? "download" : "content");
      stand.on("/wp-content/uploads/2023/02/System_hourly", undefined);
    }
    const recovered = await pull(dir, stand.root);
    assert.equal(recovered.ok, true);
    assert.equal(readPullState(dir).files[DEMAND]!.refused, undefined, "a good download ends the refusal");
  },
);

test(
  "500 twice then 200 succeeds; a hanging server times out and the pull fails in bounded time",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    let failures = 0;
    stand.on("uploads/2023/02/Station_Build_Up.csv", (_q, r) => {
      if (failures >= 2) return false;
      failures++;
      r.writeHead(500).end("busy");
      return true;
    });
    const ok = await pull(dir, stand.root);
    assert.equal(ok.ok, true, JSON.stringify(ok.files));
    assert.equal(failures, 2);

    stand.on("uploads/2023/02/Hourly_Generation.csv", () => true); // accepts, never answers
    const started = Date.now();
    const hung = await pullPortal({
      dir,
      root: stand.root,
      files: [portalFile("Hourly_Generation.csv")!],
      policy: { timeoutMs: 300, attempts: 2, backoffMs: 5, maxBackoffMs: 10 },
      now: () => NOW + 3_600_000,
    });
    const took = Date.now() - started;
    assert.equal(hung.ok, false);
    assert.match(hung.files[0]!.error!, /no (complete )?answer within 0.3 s.*after 2 attempts/);
    assert.ok(took < 10_000, `bounded: ${took} ms`);
  },
);

test(
  "a moved and renamed file is followed through its page, and the pull says the link changed",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await pull(dir, stand.root);
    // A month later the file is re-uploaded: another folder, WordPress's "-1" name; the old URL is gone.
    const text = snapshotFile("Station_Build_Up.csv").toString("utf8").replace("18977", "18978");
    const url = stand.publish("Station_Build_Up.csv", text, {
      folder: "2023/03",
      name: "Station_Build_Up-1.csv",
    });
    const moved = await pull(dir, stand.root, Date.parse("2023-03-02T10:00:00Z"));
    const build = moved.files.find((f) => f.file === "Station_Build_Up.csv")!;
    assert.equal(build.result, "ingested", JSON.stringify(build));
    assert.equal(build.link, url);
    assert.equal(build.linkChanged!.to, url);
    assert.equal(readPullState(dir).files["Station_Build_Up.csv"]!.link, url, "the new link is remembered");
  },
);

test(
  "a page that cannot be read: the remembered link, then this month's and last month's folders; every URL named",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    const page = stand.pagePath("Station_Build_Up.csv");
    await pull(dir, stand.root);
    stand.on(page, (_q, r) => (r.writeHead(404, { "Content-Type": "text/html" }).end("<p>gone</p>"), true));
    // The remembered link still answers (304: nothing new).
    const remembered = await pull(dir, stand.root, NOW + 3_600_000, [portalFile("Station_Build_Up.csv")!]);
    assert.equal(remembered.files[0]!.result, "not-modified");

    // A fresh store has nothing remembered: the upload folder of the SAST month, then the one before.
    stand.publish("Station_Build_Up.csv", snapshotFile("Station_Build_Up.csv"), { folder: "2023/01" });
    stand.requests.length = 0;
    const fresh = tempDir(t);
    const found = await pull(fresh, stand.root, NOW, [portalFile("Station_Build_Up.csv")!]);
    assert.equal(found.files[0]!.result, "ingested", JSON.stringify(found.files[0]));
    assert.deepEqual(
      stand.requests.map((r) => r.path),
      [
        page,
        "/dataportal/wp-content/uploads/2023/02/Station_Build_Up.csv",
        "/dataportal/wp-content/uploads/2023/01/Station_Build_Up.csv",
      ],
    );

    // Nowhere: one line that names each URL tried and what it answered.
    stand.on("uploads/2023/01/Station_Build_Up.csv", (_q, r) => (r.writeHead(404).end(), true));
    const lost = await pull(tempDir(t), stand.root, NOW, [portalFile("Station_Build_Up.csv")!]);
    assert.equal(lost.files[0]!.result, "failed");
    for (const url of [page, "/2023/02/Station_Build_Up.csv", "/2023/01/Station_Build_Up.csv"]) {
      assert.ok(lost.files[0]!.error!.includes(url), `${lost.files[0]!.error} names ${url}`);
    }
    assert.match(lost.files[0]!.error!, /answered HTTP 404.*answered HTTP 404.*answered HTTP 404/);
  },
);

test(
  "a file whose link dies fails each pull for three days, then is reported as stopped without failing until it is back",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    const build = [portalFile("Station_Build_Up.csv")!];
    const HOUR = 3_600_000;
    // Someone is told of each change of the file's state of publication.
    await subscribe(dir, {
      account: "ops",
      url: "https://hooks.example.org/gds",
      events: ["source.late", "source.stopped", "source.resumed", "data.published"],
    });
    assert.equal((await pull(dir, stand.root, NOW, build)).ok, true);
    // What the first download brought: 2023-02-14 00:00 SAST to the newest hour with data.
    const published = () => pendingDeliveries(dir).filter((d) => d.event.type === "data.published");
    const first = published().find((d) => d.event.data.dataset === "grid.system_state")!.event.data;
    assert.deepEqual(
      [first.hours_added, first.hours_revised, first.first_hour, first.last_hour, first.newest_hour],
      [144, 0, "2023-02-13T22:00:00.000Z", "2023-02-19T21:00:00.000Z", "2023-02-19T21:00:00.000Z"],
    );
    assert.equal(first.url, "/api/v1/grid/system-state?start=2023-02-13&end=2023-02-20");
    // The page stays up but links no file (as the capacity file's has since March 2026), and no
    // upload folder has it.
    const page = stand.pagePath("Station_Build_Up.csv");
    stand.on(
      page,
      (_q, r) => (r.writeHead(200, { "Content-Type": "text/html" }).end("<p>A report.</p>"), true),
    );
    stand.on("uploads/2023/", (_q, r) => (r.writeHead(404).end(), true));
    const since = new Date(NOW + HOUR).toISOString();
    // A new failure (a file that worked an hour ago): the pull fails, and says when it will stop.
    for (const at of [NOW + HOUR, NOW + 40 * HOUR, NOW + 73 * HOUR]) {
      const failed = await pull(dir, stand.root, at, build);
      assert.equal(failed.ok, false, `${(at - NOW) / HOUR} h`);
      assert.equal(failed.files[0]!.result, "failed");
      assert.equal(failed.files[0]!.since, since);
      assert.match(failed.files[0]!.error!, /its link answers 404 \(or its page links no \.csv file\) since/);
      assert.match(
        failed.files[0]!.error!,
        /reported as stopped, without failing the pull, once that has lasted three days/,
      );
    }
    // Past three days: stopped, since the first pull that saw it, with the date of its last data.
    const stopped = await pull(dir, stand.root, NOW + 74 * HOUR, build);
    assert.equal(stopped.ok, true, "a stopped file is a state, not a failure");
    assert.deepEqual(stopped.files[0], {
      file: "Station_Build_Up.csv",
      result: "stopped",
      since,
      lastData: "2023-02-19T21:00:00.000Z",
    });
    assert.match(
      describe(stopped.files[0]),
      /stopped: gone or empty since 2023-02-21T11:00:00.000Z; its last data is of 2023-02-19T21:00:00.000Z; tried again each pull/,
    );
    assert.equal(lastSuccessfulPull(dir), NOW + 74 * HOUR);
    assert.deepEqual(readPullState(dir).files["Station_Build_Up.csv"]!.gone, { since, why: "404" });
    assert.equal(readAttempts(join(dir, "archive")).attempts.at(-1)!.outcome, "stopped");

    // A page that cannot be read is a failure every time: nothing says the file is gone.
    stand.on(page, (_q, r) => (r.writeHead(503).end("busy"), true));
    assert.equal((await pull(dir, stand.root, NOW + 75 * HOUR, build)).files[0]!.result, "failed");

    // Published again: ingested, said to be back, and no longer gone.
    stand.on(page, undefined);
    stand.on("uploads/2023/", undefined);
    stand.publish(
      "Station_Build_Up.csv",
      snapshotFile("Station_Build_Up.csv").toString("utf8").replace("18977", "18976"),
      {
        folder: "2023/02",
        name: "Station_Build_Up-1.csv",
      },
    );
    const back = await pull(dir, stand.root, NOW + 76 * HOUR, build);
    assert.equal(back.files[0]!.result, "ingested", JSON.stringify(back.files[0]));
    assert.equal(back.files[0]!.resumed, since);
    assert.match(describe(back.files[0]!), /\(back: it was gone since 2023-02-21T11:00:00.000Z\)/);
    assert.equal(readPullState(dir).files["Station_Build_Up.csv"]!.gone, undefined);
    assert.equal(readPullState(dir).files["Station_Build_Up.csv"]!.refused, undefined);

    // Late past its cadence and STALE_AFTER_H (73 h), stopped past three days gone (74 h), and
    // current again when it published (76 h): one event each, in that order, none for the pulls
    // that changed nothing.
    const told = pendingDeliveries(dir)
      .filter((d) => d.event.type.startsWith("source."))
      .map((d) => [d.event.type, d.event.data.from, d.event.data.to]);
    assert.deepEqual(told, [
      ["source.late", "current", "late"],
      ["source.stopped", "late", "stopped"],
      ["source.resumed", "stopped", "current"],
    ]);
    const [late, stoppedEvent] = pendingDeliveries(dir).filter((d) => d.event.type.startsWith("source."));
    assert.equal(stoppedEvent!.event.data.gone_since, since);
    assert.equal(late!.event.timestamp, new Date(NOW + 73 * HOUR).toISOString());
    // The one value changed in the file that came back: one revised hour, named.
    const revised = published().filter((d) => d.event.data.dataset === "grid.system_state")[1]!.event.data;
    assert.equal(revised.hours_revised, 1);
    assert.equal(revised.first_hour, revised.last_hour);
  },
);

test(
  "a file the pulls never got data from is stopped from the second pull that finds it gone; an old 'unpublished' reads as gone",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    const capacity = [portalFile("System_hourly_demand_and_available_capacity.csv")!];
    const first = await pull(dir, stand.root, NOW, capacity);
    assert.equal(first.ok, false, "the first sight of it fails: the operator hears of it once");
    const second = await pull(dir, stand.root, NOW + 3_600_000, capacity);
    assert.equal(second.ok, true);
    assert.equal(second.files[0]!.result, "stopped");
    assert.equal(second.files[0]!.lastData, undefined);
    assert.match(describe(second.files[0]!), /no data of it is stored/);
    // A state file written by 1.8 ("unpublished") reads as a file gone since then.
    const path = join(dir, "pull-state.json");
    const state = JSON.parse(readFileSync(path, "utf8"));
    const file = state.files["System_hourly_demand_and_available_capacity.csv"];
    delete file.gone;
    file.refused = { at: "2023-02-01T00:00:00.000Z", kind: "unpublished", reason: "not published" };
    writeFileSync(path, JSON.stringify(state));
    assert.deepEqual(readPullState(dir).files["System_hourly_demand_and_available_capacity.csv"]!.gone, {
      since: "2023-02-01T00:00:00.000Z",
      why: "404",
    });
  },
);

test("a 4xx other than 404 is never retried", { skip: SKIP }, async (t) => {
  const stand = await portal(t);
  stand.on("uploads/2023/02/Station_Build_Up.csv", (_q, r) => (r.writeHead(403).end(), true));
  const refused = await pull(tempDir(t), stand.root, NOW, [portalFile("Station_Build_Up.csv")!]);
  assert.equal(refused.files[0]!.result, "failed");
  assert.match(refused.files[0]!.error!, /HTTP 403/);
  assert.equal(
    stand.requests.filter((r) => r.path.endsWith("2023/02/Station_Build_Up.csv")).length,
    1,
    "not retried",
  );
});

test(
  "a damaged webhook state fails one pull, named and set aside; its events start afresh and the next pull is fine",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await subscribe(dir, {
      account: "ops",
      url: "https://hooks.example.org/gds",
      events: ["load_reduction.started", "load_reduction.ended", "outlook.changed"],
    });
    // A hand edit cut short, and a state of the wrong shape.
    const grid = join(dir, "webhooks", "grid-state.json");
    const outlook = join(dir, "webhooks", "outlook-state.json");
    writeFileSync(grid, '{"last_hour": "2023-02-1');
    writeFileSync(outlook, '{"band": 3}\n');
    const first = await pull(dir, stand.root);
    assert.equal(first.ok, false);
    const stamp = "2023-02-21T10-00-00-000Z";
    const [gridFailure, outlookFailure, ...more] = first.files.filter((f) => f.file === "(webhook events)");
    assert.equal(more.length, 0);
    assert.equal(gridFailure!.result, "failed");
    // JSON.parse's own words differ between Node's versions.
    assert.match(
      gridFailure!.error!,
      new RegExp(
        `^the grid's events: Cannot parse "grid-state.json": [^;]*JSON[^;]*; it was set aside as grid-state\\.json\\.damaged-${stamp} and this look starts afresh$`,
      ),
    );
    assert.equal(
      outlookFailure!.error,
      `the outlook's events: Cannot read "outlook-state.json": band: Invalid type: Expected string but received 3; it was set aside as outlook-state.json.damaged-${stamp} and this look starts afresh`,
    );
    // Nothing is lost: each damaged file is kept as it was, and each look wrote its state anew.
    assert.equal(readFileSync(`${grid}.damaged-${stamp}`, "utf8"), '{"last_hour": "2023-02-1');
    assert.equal(readFileSync(`${outlook}.damaged-${stamp}`, "utf8"), '{"band": 3}\n');
    assert.equal(JSON.parse(readFileSync(grid, "utf8")).last_hour, "2023-02-19T21:00:00+00:00");
    assert.equal(typeof JSON.parse(readFileSync(outlook, "utf8")).band, "string");
    const next = await pull(dir, stand.root, NOW + 3_600_000);
    assert.equal(next.ok, true, JSON.stringify(next.files));
  },
);

test("the switch from ';' to ',' is the same file: it goes in without a word", { skip: SKIP }, async (t) => {
  const stand = await portal(t);
  const dir = tempDir(t);
  await pull(dir, stand.root);
  // The same columns, in another order, with ',' and '.': as the portal wrote them from May 2023.
  const lines = snapshotFile(DEMAND)
    .toString("utf8")
    .trimEnd()
    .split("\r\n")
    .map((l) => l.split(";"));
  const order = [0, 3, 4, 1, 2];
  const comma =
    lines.map((cells) => order.map((i) => cells[i]!.replace(",", ".")).join(",")).join("\n") + "\n";
  stand.publish(
    DEMAND,
    comma.replace("2023-02-14 00:00:00,26446.935000000001", "2023-02-14 00:00:00,26446.9"),
  );
  const switched = await pull(dir, stand.root, NOW + 3_600_000);
  const demand = switched.files.find((f) => f.file === DEMAND)!;
  assert.equal(switched.ok, true, JSON.stringify(demand));
  assert.equal(demand.result, "ingested");
});

test(
  "a changed header is refused with the one command that accepts it; healthz shows it until then",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    await pull(dir, stand.root);
    const renamed = snapshotFile(DEMAND)
      .toString("utf8")
      .replace("Residual Demand", "Residual_Demand_MW")
      .replace("2023-02-19 23:00:00;", "2023-02-19 23:00:00;")
      .replace(/\r\n$/, "\r\n2023-02-20 00:00:00;20060;21938,5;19876,5;21700\r\n");
    stand.publish(DEMAND, renamed);
    const before = storeFiles(dir);
    const later = NOW + 3_600_000;
    const pulled = await pull(dir, stand.root, later);
    const demand = pulled.files.find((f) => f.file === DEMAND)!;
    assert.equal(demand.result, "refused");
    assert.match(
      demand.error!,
      /its columns changed \(added "residual_demand_mw"; removed "residual_demand"\)/,
    );
    assert.match(
      demand.error!,
      /accept them with: npm run --silent pull -- --accept-header System_hourly_actual_and_forecasted_demand.csv/,
    );
    assert.deepEqual(storeFiles(dir), before);

    const server = await startServer(t, dir, { now: () => later });
    const health = (await (await server.get("/healthz")).json()) as {
      refused_files: { file: string; reason: string }[];
    };
    assert.equal(health.refused_files.length, 1);
    assert.equal(health.refused_files[0]!.file, DEMAND);
    assert.match(health.refused_files[0]!.reason, /columns changed/);
    // Still refused on the next pull, and still shown.
    const again = await pull(dir, stand.root, later + 3_600_000);
    assert.equal(again.files.find((f) => f.file === DEMAND)!.result, "refused");

    const accept = await runPull(dir, stand.root, ["--accept-header", DEMAND]);
    assert.equal(accept.code, 0, accept.stderr);
    assert.match(accept.stderr, /Accepted the header of System_hourly_actual_and_forecasted_demand.csv/);
    assert.match(accept.stderr, /not stored \(this release does not know them\): residual_demand_mw/);
    assert.match(accept.stderr, /the refused download: .*hours added/);
    const cleared = (await (await server.get("/healthz")).json()) as { refused_files: unknown[] };
    assert.deepEqual(cleared.refused_files, []);
    // The accepted header is the file's now: the next download with it goes in.
    const next = await pull(dir, stand.root, later + 7_200_000);
    assert.ok(["unchanged", "not-modified"].includes(next.files.find((f) => f.file === DEMAND)!.result));
    const forecast = await server.get(
      "/api/v1/grid/system-state?start=2023-02-19T22:00:00Z&end=2023-02-19T23:00:00Z",
    );
    const [hour] = ((await forecast.json()) as { data: Record<string, number | null>[] }).data;
    assert.equal(hour!.residual_forecast_mw, 20060, "the refused download's known columns were stored");
  },
);

/** Runs `scripts/pull.ts` with `args` against `root` into `dir`. */
function runPull(dir: string, root: string, args: string[], env: Record<string, string> = {}) {
  return runScript("scripts/pull.ts", args, {
    ...process.env,
    DATA_DIR: dir,
    PORTAL_URL: root,
    PULL_BACKOFF_S: "0.01",
    PORTAL_FILES: THREE_FILES.join(","),
    ...env,
  });
}

test(
  "npm run pull exits 0 when current, non-zero on a failure, and --json prints one summary line",
  { skip: SKIP },
  async (t) => {
    const stand = await portal(t);
    const dir = tempDir(t);
    const ok = await runPull(dir, stand.root, ["--json"]);
    assert.equal(ok.code, 0, ok.stderr);
    const summary = JSON.parse(ok.stdout.trim());
    assert.equal(summary.ok, true);
    assert.equal(summary.files.length, 3);
    assert.match(ok.stderr, /Station_Build_Up.csv: 144 hours added/);
    assert.doesNotMatch(ok.stderr, /GET /, "URLs only with --verbose");
    stand.on(
      "uploads/2023/02/Hourly_Generation.csv",
      (_q, r) => (r.writeHead(200, { "Content-Type": "text/html" }).end("<html></html>"), true),
    );
    const failed = await runPull(dir, stand.root, ["--json"], { PORTAL_FILES: "Hourly_Generation.csv" });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /REFUSED: .*HTML page/);
    const bad = await runPull(dir, stand.root, [], { PULL_TIMEOUT_S: "soon" });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Invalid PULL_TIMEOUT_S: "soon" must be a number of seconds/);
    const usage = await runPull(dir, stand.root, ["--bogus"]);
    assert.equal(usage.code, 2);
  },
);

test("make pull into a DATA_DIR that does not exist, with the portal unreachable: one line, exit 1, nothing left", async (t) => {
  const parent = tempDir(t);
  const dir = join(parent, "data");
  // A port nothing listens on: connections are refused at once.
  const closed = await freePort();
  const run = await runPull(dir, `http://127.0.0.1:${closed}/dataportal/`, [], { PULL_ATTEMPTS: "2" });
  assert.equal(run.code, 1);
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, run.stderr);
  assert.match(
    lines[0]!,
    /^Pull FAILED in [\d.]+ s: Cannot reach the portal at http:\/\/127\.0\.0\.1:\d+\/dataportal\/: .*ECONNREFUSED.*nothing was downloaded or stored$/,
  );
  assert.equal(existsSync(dir), false, "DATA_DIR was not created");
  assert.deepEqual(readdirSync(parent), []);
});
