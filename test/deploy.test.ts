import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const DEPLOY = join(import.meta.dirname, "..", "deploy");
const ANALYZE = spawnSync("systemd-analyze", ["--version"]).status === 0;

test(
  "the systemd units pass systemd-analyze verify",
  { skip: ANALYZE ? false : "systemd-analyze is not on this machine (Debian: apt-get install -y systemd)" },
  () => {
    const units = ["gds.service", "gds@8001.service", "gds-pull.service", "gds-pull.timer"].map((u) =>
      join(DEPLOY, u === "gds@8001.service" ? "gds@.service" : u),
    );
    const run = spawnSync("systemd-analyze", ["verify", ...units], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr.trim(), "", "no warnings either");
  },
);

test("the timer and the cron line run make pull hourly at a few minutes past", () => {
  const timer = readFileSync(join(DEPLOY, "gds-pull.timer"), "utf8");
  assert.match(timer, /^OnCalendar=\*-\*-\* \*:07:00$/m);
  assert.match(
    readFileSync(join(DEPLOY, "gds-pull.service"), "utf8"),
    /^ExecStart=\/usr\/bin\/make .*pull$/m,
  );
  const cron = readFileSync(join(DEPLOY, "crontab.example"), "utf8")
    .split("\n")
    .find((l) => /^\d/.test(l))!;
  assert.match(cron, /^7 \* \* \* \* .*make --no-print-directory pull/);
});

test("the server unit is hardened, restarts on failure and drains on SIGTERM", () => {
  const unit = readFileSync(join(DEPLOY, "gds.service"), "utf8");
  for (const line of [
    "User=gds",
    "ProtectSystem=strict",
    "NoNewPrivileges=yes",
    "ReadWritePaths=/var/lib/grid-data-service",
    "Restart=on-failure",
    "KillSignal=SIGTERM",
  ]) {
    assert.ok(unit.split("\n").includes(line), line);
  }
});

test("the instance unit runs every core of its port on the shared Redis, behind one proxy", () => {
  const unit = readFileSync(join(DEPLOY, "gds@.service"), "utf8");
  assert.match(unit, /^Environment=.*PORT=%i .*WORKERS=auto.*TRUST_PROXY=1/m);
  assert.match(unit, /^EnvironmentFile=\/etc\/grid-data-service.env$/m);
  const nginx = readFileSync(join(DEPLOY, "nginx-gds.conf"), "utf8");
  for (const port of ["8001", "8002"]) assert.match(nginx, new RegExp(`server 127\\.0\\.0\\.1:${port}`));
  assert.match(nginx, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
});
