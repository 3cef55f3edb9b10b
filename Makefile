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
# The vendored front-end files: one line each in assets/vendor.list, which the
# Dockerfile reads too.
VENDOR_LIST := assets/vendor.list
VENDOR      := $(addprefix assets/vendor/,$(shell awk '/^[^\#]/ {print $$1}' $(VENDOR_LIST)))
# The image `make image` builds (podman, no registry).
IMAGE       ?= localhost/portal:latest

.PHONY: help run test lint lint-api build assets image bench fuzz tools-test tools-lint tools-image clean-data screenshots docs

help:
	@echo "make run    start the portal on http://127.0.0.1:8080 (installs Postgres if missing)"
	@echo "make test   run every test (installs Postgres, Chromium and versitygw if missing)"
	@echo "make lint   run the linter alone (make test runs it too)"
	@echo "make image  build the container image $(IMAGE) with podman (no registry needed)"
	@echo "make lint-api  lint the partner API's OpenAPI document with Spectral (make test runs it too)"
	@echo "make bench  run the benchmarks written up in BENCHMARKS.md"
	@echo "make fuzz   fuzz every form binder, the webhook decoder and the upload reader (FUZZTIME=30s each)"
	@echo "make screenshots  write PNGs of the main pages at 1280 and 390 px into docs/screenshots"
	@echo "make docs   regenerate docs/configuration.md from the configuration code"

## Front-end libraries come from npm, pinned by package-lock.json, and are copied
## into the embedded assets; they are never committed.
node_modules/.package-lock.json: package.json package-lock.json
	@command -v npm >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends nodejs npm; }
	@echo "Installing the front-end libraries (htmx, idiomorph, Pico) from npm..."
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

assets/vendor/%: node_modules/.package-lock.json $(VENDOR_LIST)
	cp node_modules/$$(awk -v f='$*' '$$1 == f {print $$2}' $(VENDOR_LIST)) $@

assets: $(VENDOR)

build: assets
	@echo "Building bin/portal (the first build downloads Go modules and takes a few minutes)..."
	$(GO) build -o bin/portal ./cmd/portal

## The image: the static binary, Debian's CA certificates, a writable /tmp and a
## non-root numeric user on no base image, so it builds where no registry can be
## reached (the Dockerfile builds the same from registry images). make test starts it.
image: assets tools-image
	scripts/build-image.sh $(IMAGE)

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

## Test tools: PostgreSQL, Chromium, HAProxy, podman and runc and promtool from Debian
## (scripts/tools.sh: one apt-get update for all), versitygw as the S3-compatible
## server and golangci-lint at a pinned version (built from the Go module proxy into GOBIN).
tools-test: tools-lint
	@GOBIN=$(GOBIN) scripts/tools.sh
	@command -v versitygw >/dev/null || [ -x $(GOBIN)/versitygw ] || $(GO) install $(VERSITYGW)

## The image's tools (podman, runc, CA certificates) come with tools-test.
tools-image:
	@GOBIN=$(GOBIN) scripts/tools.sh

tools-lint:
	@$(GOBIN)/golangci-lint version 2>/dev/null | grep -q "version $(GOLANGCI_VERSION) " || $(GO) install $(GOLANGCI)

## The linter guards the arrows between packages (depguard, see .golangci.yml and
## ARCHITECTURE.md) and a few habits, and go.mod must be tidy (go mod tidy -diff
## prints what tidying would change: a direct import marked indirect, a requirement
## nothing uses); make test runs both beside the tests.
LINT = tidy=0; $(GO) mod tidy -diff || { tidy=1; echo "go.mod is not tidy: run go mod tidy"; }; \
	$(GOBIN)/golangci-lint run --allow-parallel-runners ./... && [ $$tidy -eq 0 ]

lint: tools-lint
	@$(LINT)

## Spectral lints the partner API's OpenAPI document with every rule of its OpenAPI
## ruleset (.spectral.yaml); make test runs it too.
lint-api: node_modules/.package-lock.json
	node_modules/.bin/spectral lint --fail-severity=warn internal/partnerapi/contract/openapi.yaml

## Every test, uncached, beside the linter and go mod tidy's check, each phase timed
## (scripts/test.sh); CI runs exactly this.
test:
	@GO=$(GO) scripts/test.sh

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

## The configuration reference is generated from internal/config; a test fails when it is stale.
docs:
	$(GO) run ./cmd/portal config reference > docs/configuration.md

clean-data:
	-@for d in $(PG_RUN) $(PG_TEST); do [ -d $$d/db ] && runuser -u postgres -- /usr/lib/postgresql/*/bin/pg_ctl -D $$d/db stop -m fast; done
	rm -rf .data
