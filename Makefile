# The two commands a newcomer needs: `make serve` and `make test`. Both install what they need.
SHELL := /bin/bash
NODE_BIN := node_modules/.bin
# The server's heap: a bound keeps its memory near its live data (caches included) on a small VM.
# Raise it with the caches (CACHE_DAYS, RECORD_CACHE_MB, RESPONSE_CACHE_MB), e.g. make serve NODE_HEAP_MB=512.
NODE_HEAP_MB ?= 160
export GDS_NODE_FLAGS := --max-old-space-size=$(NODE_HEAP_MB) --max-semi-space-size=4
TESTS := $(sort $(wildcard test/*.test.ts))

.PHONY: serve test typecheck format-check format evaluate-stress bench clean install

# Reinstall when the lock file changes; `npm ci` gives exactly the locked versions.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.installed

serve: node_modules/.installed
	node $(GDS_NODE_FLAGS) --import tsx scripts/serve.ts

typecheck: node_modules/.installed
	$(NODE_BIN)/tsc --noEmit

format-check: node_modules/.installed
	$(NODE_BIN)/prettier --check .

format: node_modules/.installed
	$(NODE_BIN)/prettier --write .

test: node_modules/.installed typecheck format-check
	$(NODE_BIN)/c8 --reporter=text-summary --reporter=text --all --src src --exclude 'test/**' --exclude 'scripts/**' \
		node --import tsx --test --test-reporter=spec $(TESTS)

bench: node_modules/.installed
	$(NODE_BIN)/tsx scripts/bench.ts

evaluate-stress: node_modules/.installed
	$(NODE_BIN)/tsx scripts/evaluate-stress.ts

clean:
	rm -rf node_modules coverage
