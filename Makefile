# The two commands a newcomer needs: `make serve` and `make test`. Both install what they need.
SHELL := /bin/bash
NODE_BIN := node_modules/.bin
TESTS := $(sort $(wildcard test/*.test.ts))

.PHONY: serve test typecheck format-check format evaluate-stress bench clean install

# Reinstall when the lock file changes; `npm ci` gives exactly the locked versions.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.installed

serve: node_modules/.installed
	$(NODE_BIN)/tsx scripts/serve.ts

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
