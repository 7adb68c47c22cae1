# killchain — live-agent prompt-injection studies.
SHELL := /bin/bash
GO ?= go
BIN := bin/killchain
STUDY ?= hcl/smoke.hcl
OUT ?= runs/smoke
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo +dirty)
LDFLAGS := -X github.com/killchain/killchain/runner.Commit=$(COMMIT)

.DEFAULT_GOAL := help

.PHONY: help
help: ## show this help
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "}{printf "  %-10s %s\n",$$1,$$2}'

.PHONY: build
build: build-main build-probes ## build bin/killchain and bin/killchain-probes

.PHONY: sandbox-bins
sandbox-bins: ## compile the static binaries killchain embeds (images/bin: toolbox, kcaudio)
	$(GO) generate ./images

.PHONY: build-main
build-main: sandbox-bins ## build bin/killchain (no cgo; the sandbox binaries embedded, symbols stripped)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(BIN) ./cmd/killchain

.PHONY: build-probes
build-probes: ## build bin/killchain-probes (cgo: Ollama's engine; minutes the first time)
	CGO_ENABLED=1 $(GO) build -ldflags "$(LDFLAGS)" -o bin/killchain-probes ./cmd/killchain-probes

.PHONY: deps
deps: ## install the system packages the tests use (poppler-utils, speech programs, chromium)
	@bash scripts/deps.sh

.PHONY: run
run: build-main ## build the sandbox images, run the smoke study ($(STUDY)) into $(OUT), write its report
	$(BIN) images build
	rm -rf $(OUT)
	$(BIN) run --output $(OUT) $(STUDY)
	$(BIN) report $(OUT)
	@echo "report: $(OUT)/report/report.md"

.PHONY: kube
kube: ## build the test cluster's programs (etcd, Kubernetes) into ~/.cache/killchain/kube, once
	@bash scripts/kube/build.sh >/dev/null

.PHONY: test
test: deps kube sandbox-bins ## run every test with the race detector (the cgo probe engine's without it)
	$(GO) test -race -count=1 -timeout 30m $$($(GO) list ./... | grep -v /probes/engine)
	CGO_ENABLED=1 $(GO) test -count=1 ./probes/engine/
	FUZZTIME=$(FUZZTIME) GO=$(GO) bash scripts/fuzz.sh

FUZZTIME ?= 2s

.PHONY: fuzz
fuzz: sandbox-bins ## run every fuzz target for FUZZTIME each (default 2s; make test runs it too)
	FUZZTIME=$(FUZZTIME) GO=$(GO) bash scripts/fuzz.sh

.PHONY: lint
lint: ## gofmt, go vet, and go.mod tidy
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@$(GO) mod tidy -diff || { echo "go.mod or go.sum is not tidy: run go mod tidy"; exit 1; }
