# The two commands a newcomer needs are `make run` and `make test`.
GO       ?= go
DATA_DIR ?= ./pgserver-data
LISTEN   ?= 127.0.0.1:5432
BENCH    ?= .
BENCHTIME ?= 1s

.PHONY: build run test bench fuzz vet pg-regress protodiff

build:
	$(GO) build -o bin/pgserver ./cmd/pgserver

run: build
	./bin/pgserver --listen $(LISTEN) --data-dir $(DATA_DIR)

vet:
	$(GO) vet ./...

# The whole suite, as CI runs it (.ci/run).
test: vet
	@scripts/seaweedfs.sh path >/dev/null 2>&1 || \
	  echo "*** SeaweedFS is not built: the s3:// remote tests will be SKIPPED (scripts/seaweedfs.sh build, once)"
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

# The protocol differential tester (regress/internal/protodiff) against a
# PostgreSQL 15 started on this machine: N sequences from SEED (0: from the
# clock), or until TIME (e.g. 10m); KNOWN=all also generates the known
# engine differences. `make protodiff N=1 SEED=s` replays one sequence.
N       ?= 100000
SEED    ?= 0
TIME    ?= 0
WORKERS ?= 2
KNOWN   ?=
protodiff:
	$(GO) test -count=1 -timeout 0 -v -run '^TestProtodiff$$' ./regress/ -args \
	  -protodiff.n=$(N) -protodiff.seed=$(SEED) -protodiff.time=$(TIME) \
	  -protodiff.workers=$(WORKERS) -protodiff.known=$(KNOWN)
