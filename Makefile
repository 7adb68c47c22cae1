# killchain — live-agent prompt-injection studies.
SHELL := /bin/bash
GO ?= go
BIN := bin/killchain
STUDY ?= hcl/smoke.hcl
OUT ?= runs/smoke
export TESTCONTAINERS_RYUK_DISABLED ?= true
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo +dirty)
LDFLAGS := -X github.com/killchain/killchain/runner.Commit=$(COMMIT)

.DEFAULT_GOAL := help

.PHONY: help
help: ## show this help
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "}{printf "  %-10s %s\n",$$1,$$2}'

.PHONY: build
build: ## build bin/killchain
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/killchain

.PHONY: deps
deps: ## install the system packages the tests use (poppler-utils)
	@bash scripts/deps.sh

.PHONY: run
run: build ## build the sandbox images, run the smoke study ($(STUDY)) into $(OUT), write its report
	$(BIN) images build
	rm -rf $(OUT)
	$(BIN) run --output $(OUT) $(STUDY)
	$(BIN) report $(OUT)
	@echo "report: $(OUT)/report/report.md"

.PHONY: test
test: deps ## run every test with the race detector
	$(GO) test -race -count=1 ./...

.PHONY: lint
lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
