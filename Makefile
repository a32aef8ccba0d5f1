# ctxkit: small Unix filters for LLM agent transcripts.

GO          ?= go
BIN         := bin
CMDS        := $(notdir $(wildcard cmd/ctx-*))
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
EXAMPLE     := examples/session.jsonl

.PHONY: all build demo test e2e dask lint bench bench-scale bench-dask bench-archive measure fuzz install clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

# Build the tools and run the README's pipeline on the shipped example
# session: what each filter did, then what it all saved.
demo: build
	$(BIN)/ctx-dedupe --stats $(EXAMPLE) \
	  | $(BIN)/ctx-truncate --stats \
	  | $(BIN)/ctx-summarize --stats --protect-calls 3 --min-savings 0 \
	  | $(BIN)/ctx-count --before $(EXAMPLE)

# Every test: units, golden files, corpus properties, command-level scripts,
# with the race detector. The command scripts take some ten minutes under
# it on 2 cores, go test's default limit for a package: 30 leaves room.
test:
	$(GO) test -race -timeout 30m ./...

# The real Claude Code and Codex CLI against a scripted model server, and
# the pages of ctx-count --html in a real headless Chromium (internal/e2e).
# The agents install once from the npm registry (docs/hooks.md); Chromium
# from Debian's archive (apt-get install chromium) when no browser is on
# the PATH.
BROWSERS := chromium chromium-browser google-chrome google-chrome-stable
e2e:
	@for b in $(BROWSERS); do command -v $$b >/dev/null && exit 0; done; \
	  echo "installing chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
	CTX_E2E=1 $(GO) test -count=1 ./internal/e2e/

# The Dask jobs of docs/scale.md, as the page writes them, on a real
# dask-scheduler and two dask-workers over loopback, checked against one
# machine's results (scripts/dask). Installs Debian's python3-distributed
# when it is missing, and fails when it cannot; runs on the corpus, or on
# the fixtures alone without one (CTX_REQUIRE_CORPUS=1: fails without it).
dask: build
	scripts/dask

lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) -checks all ./...

# Throughput and memory on a ~100 MB transcript (see docs/performance.md).
bench: build
	scripts/bench

# ctx-count --by over 1,000 sessions and --each-line over a JSONL corpus
# (see docs/performance.md).
bench-scale: build
	scripts/bench-scale

# ctx-count --by over 10,000 sessions on a Dask cluster of two workers on
# loopback against one machine, in one run (see docs/performance.md).
bench-dask: build
	scripts/bench-dask

# The archive: ctx-archive on the ~100 MB transcript, ctx-recall on an
# archive of 100,000 executions (made once, ~1.4 GB of transcripts).
bench-archive: build
	scripts/bench-archive

# The numbers of the docs, measured on the corpus (scripts/measure).
measure:
	scripts/measure

# A short run of every fuzz target (FUZZTIME each).
FUZZTIME ?= 20s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

install:
	$(GO) install ./cmd/...

clean:
	rm -rf $(BIN)
