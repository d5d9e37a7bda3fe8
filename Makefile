# The two commands a newcomer needs are `make run` and `make test`.
GO       ?= go
DATA_DIR ?= ./pgserver-data
LISTEN   ?= 127.0.0.1:5432
BENCH    ?= .
BENCHTIME ?= 1s

.PHONY: build run test bench fuzz vet pg-regress

build:
	$(GO) build -o bin/pgserver ./cmd/pgserver

run: build
	./bin/pgserver --listen $(LISTEN) --data-dir $(DATA_DIR)

vet:
	$(GO) vet ./...

# The whole suite, as CI runs it (.ci/run).
test: vet
	$(GO) test -count=1 ./...

# Engine benchmarks (Go), then pgbench (and sysbench when installed)
# against a PostgreSQL 15 started on this machine, with ours/PostgreSQL
# ratios. See README.md for the figures and the machine.
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) ./prolly/... ./store/...
	./scripts/bench.sh

# A short pass of every fuzz target; FUZZTIME=5m for a longer one.
FUZZTIME ?= 10s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# Score against ../shared/pg-regress (PostgreSQL's regression corpus);
# ARGS=--diff shows each failing statement.
pg-regress:
	./scripts/pg-regress.sh $(ARGS)
