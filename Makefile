# Two commands set everything up on a fresh Debian machine:
#   make run    the portal on its embedded defaults (local Postgres, local-disk
#               documents, the sandbox upstream in-process, mail kept in the outbox)
#   make test   everything, against a real Postgres, S3-compatible server and browser
SHELL := /bin/bash
.DEFAULT_GOAL := help

GO          ?= go
GOBIN       := $(shell $(GO) env GOPATH)/bin
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
VERSITYGW   := github.com/versity/versitygw/cmd/versitygw@v1.8.0
GOLANGCI_VERSION := 2.15.0
GOLANGCI    := github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v$(GOLANGCI_VERSION)
PG_RUN      := .data/postgres
PG_RUN_PORT := 54329
PG_TEST     := .data/postgres-test
PG_TEST_PORT:= 54330
VENDOR      := assets/vendor/htmx.min.js assets/vendor/idiomorph-ext.min.js assets/vendor/pico.min.css \
               assets/vendor/redoc.standalone.js

.PHONY: help run test lint lint-api build assets bench fuzz tools-test tools-lint clean-data screenshots

help:
	@echo "make run    start the portal on http://127.0.0.1:8080 (installs Postgres if missing)"
	@echo "make test   run every test (installs Postgres, Chromium and versitygw if missing)"
	@echo "make lint   run the linter alone (make test runs it too)"
	@echo "make lint-api  lint the partner API's OpenAPI document with Spectral (make test runs it too)"
	@echo "make bench  run the benchmarks written up in BENCHMARKS.md"
	@echo "make fuzz   fuzz every form binder, the webhook decoder and the upload reader (FUZZTIME=30s each)"
	@echo "make screenshots  write PNGs of the main pages at 1280 and 390 px into docs/screenshots"

## Front-end libraries come from npm, pinned by package-lock.json, and are copied
## into the embedded assets; they are never committed.
node_modules/.package-lock.json: package.json package-lock.json
	@command -v npm >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends nodejs npm; }
	@echo "Installing the front-end libraries (htmx, idiomorph, Pico) from npm..."
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

assets/vendor/htmx.min.js: node_modules/.package-lock.json
	cp node_modules/htmx.org/dist/htmx.min.js $@

assets/vendor/idiomorph-ext.min.js: node_modules/.package-lock.json
	cp node_modules/idiomorph/dist/idiomorph-ext.min.js $@

assets/vendor/pico.min.css: node_modules/.package-lock.json
	cp node_modules/@picocss/pico/css/pico.min.css $@

# Redoc renders the partner API's reference pages (/api/docs) in the browser.
assets/vendor/redoc.standalone.js: node_modules/.package-lock.json
	cp node_modules/redoc/bundles/redoc.standalone.js $@

assets: $(VENDOR)

build: assets
	@echo "Building bin/portal (the first build downloads Go modules and takes a few minutes)..."
	$(GO) build -o bin/portal ./cmd/portal

.data/encryption.key:
	@mkdir -p .data
	@umask 077; echo "k1:$$(head -c 32 /dev/urandom | base64 -w0)" > $@

run: build .data/encryption.key
	@if [ -z "$$DATABASE_URL" ]; then \
		DATABASE_URL=$$(scripts/postgres.sh $(PG_RUN) $(PG_RUN_PORT) portal) || exit 1; \
		export DATABASE_URL; \
	fi; \
	export PORTAL_ENCRYPTION_KEYS_FILE=$${PORTAL_ENCRYPTION_KEYS_FILE:-.data/encryption.key}; \
	export PORTAL_SEED_EXAMPLES=$${PORTAL_SEED_EXAMPLES:-true}; \
	export PORTAL_WEBHOOKS_ALLOW_PRIVATE=$${PORTAL_WEBHOOKS_ALLOW_PRIVATE:-true}; \
	echo "Starting the portal (it prints where to sign in)..."; \
	exec bin/portal serve

## Test tools: Chromium for browser tests, versitygw as the S3-compatible server,
## golangci-lint at a pinned version (built from the Go module proxy into GOBIN).
tools-test: tools-lint
	@command -v chromium >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends chromium; }
	@command -v versitygw >/dev/null || [ -x $(GOBIN)/versitygw ] || $(GO) install $(VERSITYGW)

tools-lint:
	@$(GOBIN)/golangci-lint version 2>/dev/null | grep -q "version $(GOLANGCI_VERSION) " || $(GO) install $(GOLANGCI)

## The linter guards the arrows between packages (depguard, see .golangci.yml and
## ARCHITECTURE.md) and a few habits; make test runs it beside the tests.
lint: tools-lint
	$(GOBIN)/golangci-lint run --allow-parallel-runners ./...

## Spectral lints the partner API's OpenAPI document with every rule of its OpenAPI
## ruleset (.spectral.yaml); make test runs it too.
lint-api: node_modules/.package-lock.json
	node_modules/.bin/spectral lint --fail-severity=warn internal/partnerapi/contract/openapi.yaml

test: assets tools-test lint-api
	@PORTAL_TEST_DATABASE_URL=$$(scripts/postgres.sh $(PG_TEST) $(PG_TEST_PORT) postgres test) || exit 1; \
	export PORTAL_TEST_DATABASE_URL PATH="$(GOBIN):$$PATH"; \
	lint_log=$$(mktemp); \
	$(GOBIN)/golangci-lint run --allow-parallel-runners ./... >"$$lint_log" 2>&1 & lint_pid=$$!; \
	$(GO) test -race -timeout 30m ./...; test_status=$$?; \
	wait $$lint_pid; lint_status=$$?; \
	echo "golangci-lint:"; cat "$$lint_log"; rm -f "$$lint_log"; \
	[ $$lint_status -eq 0 ] || echo "golangci-lint failed: a wrong arrow between packages, or a habit of .golangci.yml"; \
	[ $$test_status -eq 0 ] && [ $$lint_status -eq 0 ]

bench: assets tools-test
	@PORTAL_TEST_DATABASE_URL=$$(scripts/postgres.sh $(PG_TEST) $(PG_TEST_PORT) postgres test) || exit 1; \
	export PORTAL_TEST_DATABASE_URL PATH="$(GOBIN):$$PATH"; \
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

## Screenshots of the main pages (docs/screenshots, committed): a fixed clock and
## seeded data, so the pictures change only when the pages do.
screenshots: assets tools-test
	@PORTAL_TEST_DATABASE_URL=$$(scripts/postgres.sh $(PG_TEST) $(PG_TEST_PORT) postgres test) || exit 1; \
	export PORTAL_TEST_DATABASE_URL PATH="$(GOBIN):$$PATH"; \
	$(GO) test -tags screenshots -run '^TestScreenshots$$' -count=1 -timeout 10m ./internal/web/

## Fuzzing proper: every Fuzz target of the module in turn, FUZZTIME each. `make test`
## runs their seed corpora (and any crashers kept under testdata/fuzz) as ordinary tests.
FUZZTIME ?= 30s
fuzz: assets
	@set -e; for file in $$(grep -rl --include='*_test.go' '^func Fuzz' internal); do \
		for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$file); do \
			echo "== $$name in ./$$(dirname $$file) for $(FUZZTIME)"; \
			$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) ./$$(dirname $$file); \
		done; \
	done

clean-data:
	-@for d in $(PG_RUN) $(PG_TEST); do [ -d $$d/db ] && runuser -u postgres -- /usr/lib/postgresql/*/bin/pg_ctl -D $$d/db stop -m fast; done
	rm -rf .data
