#!/usr/bin/env bash
# Compares two pgserver binaries on one pgbench workload, alternating them
# so that both see the same minutes of a shared machine: for each run, a
# fresh data directory, pgbench -i at SCALE, then pgbench for DURATION
# seconds; it prints tps, failed transactions and the server's CPU time
# (utime + stime from /proc) per transaction, which moves far less than
# tps when other tenants take the CPUs.
#
#   scripts/bench-ab.sh OLD_BINARY NEW_BINARY [pgbench options]
#   RUNS=3 CLIENTS=16 scripts/bench-ab.sh /tmp/old bin/pgserver -N
set -euo pipefail
old=$1 new=$2
shift 2
RUNS=${RUNS:-3} CLIENTS=${CLIENTS:-4} SCALE=${SCALE:-2} DURATION=${DURATION:-10}
port=$((20000 + RANDOM % 20000))

run() { # run BINARY LABEL PGBENCH_ARGS...
	local bin=$1 label=$2
	shift 2
	local dir
	dir=$(mktemp -d)
	"$bin" --listen "127.0.0.1:$port" --data-dir "$dir/data" --log-level error &
	local pid=$!
	for _ in $(seq 50); do pg_isready -q -h 127.0.0.1 -p "$port" && break; sleep 0.1; done
	pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s "$SCALE" postgres >/dev/null 2>&1
	local t0 t1 out n tps fail
	t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	out=$(pgbench -h 127.0.0.1 -p "$port" -U postgres -n -c "$CLIENTS" -j 2 -T "$DURATION" "$@" postgres 2>&1)
	t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	rm -rf "$dir"
	n=$(echo "$out" | awk '/actually processed/ {split($6, a, "/"); print a[1]}')
	tps=$(echo "$out" | awk '/^tps/ {print $3}')
	fail=$(echo "$out" | awk '/number of failed/ {print $5}')
	# clock ticks are 1/100 s
	echo "$label tps=$tps failed=$fail cpu_us_per_tx=$(((t1 - t0) * 10000 / n))"
}

for i in $(seq "$RUNS"); do
	run "$old" "old run $i" "$@"
	run "$new" "new run $i" "$@"
done
