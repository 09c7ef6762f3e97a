import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPullConfig } from "../src/pull/pull-config.ts";

test("pull settings: defaults, overrides, and a clear error for each bad one", () => {
  const defaults = loadPullConfig({});
  assert.equal(defaults.root, "https://www.eskom.co.za/dataportal/");
  assert.equal(defaults.note, undefined);
  assert.deepEqual(
    defaults.files.map((f) => f.name),
    [
      "Station_Build_Up.csv",
      "Station_Build_Up_Yesterday.csv",
      "System_hourly_actual_and_forecasted_demand.csv",
      "Hourly_Generation.csv",
      "System_hourly_demand_and_available_capacity.csv",
      "Hourly_UCLF_and_OCLF_Trend.csv",
      "Pumped_storage_gen_hours_gas_generation_and_manual_load_reduction.csv",
      "Official_hourly_forecast_for_next_3_months.csv",
      "Weekly_Eskom_generation_capacity_breakdown.csv",
      "Weekly_unplanned_outages.csv",
      "Monthly_Eskom_generation_capacity_breakdown.csv",
    ],
    "every file, the build-up of yesterday right after the one of the last 7 days it backs up",
  );
  assert.deepEqual(defaults.policy, {
    timeoutMs: 30_000,
    attempts: 4,
    backoffMs: 2000,
    maxBackoffMs: 60_000,
  });
  const set = loadPullConfig({
    PORTAL_URL: "http://127.0.0.1:9/x",
    PORTAL_FILES: " Hourly_Generation.csv, Station_Build_Up.csv ",
    PULL_TIMEOUT_S: "0.5",
  });
  assert.equal(set.root, "http://127.0.0.1:9/x/");
  assert.deepEqual(
    set.files.map((f) => f.name),
    ["Hourly_Generation.csv", "Station_Build_Up.csv"],
  );
  assert.equal(set.policy.timeoutMs, 500);
  // The upload folder that releases up to 1.3 took: still works, and says what to set.
  const old = loadPullConfig({ PORTAL_URL: "https://www.eskom.co.za/dataportal/wp-content/uploads" });
  assert.equal(old.root, "https://www.eskom.co.za/dataportal/");
  assert.match(old.note!, /set PORTAL_URL=https:\/\/www.eskom.co.za\/dataportal\//);
  assert.throws(
    () => loadPullConfig({ PORTAL_URL: "not a url" }),
    /Invalid PORTAL_URL: "not a url" must be a URL/,
  );
  assert.throws(
    () => loadPullConfig({ PORTAL_FILES: "../etc/passwd" }),
    /Invalid PORTAL_FILES: "..\/etc\/passwd" must name the portal's files, comma-separated, from: Station_Build_Up.csv, /,
  );
  assert.throws(
    () => loadPullConfig({ PULL_ATTEMPTS: "0" }),
    /Invalid PULL_ATTEMPTS: "0" must be at least 1/,
  );
  // A stopped file's PowerBI report: read by default, through the viewer's cluster or another address.
  assert.deepEqual(defaults.powerbi, { enabled: true });
  assert.deepEqual(loadPullConfig({ PORTAL_POWERBI: "0", POWERBI_API_URL: "http://127.0.0.1:9" }).powerbi, {
    enabled: false,
    apiUrl: "http://127.0.0.1:9",
  });
  assert.throws(
    () => loadPullConfig({ PORTAL_POWERBI: "yes" }),
    /Invalid PORTAL_POWERBI: "yes" must be "0" or "1"/,
  );
  assert.throws(
    () => loadPullConfig({ POWERBI_API_URL: "file:///etc/passwd" }),
    /Invalid POWERBI_API_URL: "file:\/\/\/etc\/passwd" must be an http or https URL/,
  );
});
