#!/usr/bin/env bash
# Compares pgserver with a real PostgreSQL 15 on this machine, with pgbench
# and (when installed) sysbench: builds pgserver, starts it and a private
# PostgreSQL cluster on free loopback ports, runs the same workloads against
# both, and prints each figure with the ratio ours/PostgreSQL (latency: lower
# is better; tps: higher is better).
#
#   scripts/bench.sh                  # pgbench select-only, simple-update and tpcb-like
#   DURATION=30 RUNS=3 CLIENTS="1 4 16" scripts/bench.sh
#
# Each pgbench workload runs at every client count of CLIENTS (default 1, 4
# and 16: one client hides contention), and prints tps, average latency,
# failed transactions (ours) and the ratio ours/PostgreSQL.
#
# Needs postgresql-15 (server and pgbench); sysbench is optional.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
RUNS=${RUNS:-1}
SCALE=${SCALE:-1}
CLIENTS=${CLIENTS:-1 4 16}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
[ -x "$PGBIN/postgres" ] || { echo "bench: PostgreSQL 15 not found in $PGBIN (apt-get install -y postgresql-15)" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "bench: pgbench not found" >&2; exit 2; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.1; done; return 1; }

work=$(mktemp -d)
chmod 755 "$work"
mkdir "$work/pg" "$work/sock"
chown postgres "$work/pg" "$work/sock"
ours_port=$(free_port)
pg_port=$(free_port)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  su postgres -c "$PGBIN/pg_ctl -D $work/pg -m fast stop" >/dev/null 2>&1 || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o bin/pgserver ./cmd/pgserver
./bin/pgserver --listen "127.0.0.1:$ours_port" --data-dir "$work/ours" --log-level error &
pids+=($!)
su postgres -c "$PGBIN/initdb -D $work/pg --locale=C.UTF-8 -E UTF8 -A trust" >/dev/null
su postgres -c "$PGBIN/pg_ctl -D $work/pg -o '-p $pg_port -k $work/sock -c listen_addresses=127.0.0.1' -l $work/sock/pg.log start" >/dev/null
wait_port "$ours_port"; wait_port "$pg_port"

# run PORT CLIENTS ARGS...: prints "tps latency_ms failed" (median of RUNS
# runs by tps).
run() {
  local port=$1 clients=$2; shift 2
  for _ in $(seq "$RUNS"); do
    pgbench -h 127.0.0.1 -p "$port" -U postgres -n -M prepared -c "$clients" -j 2 -T "$DURATION" "$@" postgres 2>&1 |
      awk '/^tps/ {tps=$3} /^latency average/ {lat=$4} /failed transactions/ {f=$5} END {print tps, lat, f+0}'
  done | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'
}

printf '%-36s %12s %12s %8s %8s\n' workload ours postgres ratio failed
for target in ours pg; do
  port=$ours_port; [ $target = pg ] && port=$pg_port
  pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s "$SCALE" -q postgres >"$work/init-$target.log" 2>&1 || {
    echo "pgbench -i failed on $target:"; tail -5 "$work/init-$target.log"; exit 1; }
done
for wl in "select-only:-S" "simple-update:-N" "tpcb-like:"; do
  name=${wl%%:*}; flag=${wl#*:}
  for c in $CLIENTS; do
    read -r ot ol of < <(run "$ours_port" "$c" $flag)
    read -r pt pl pf < <(run "$pg_port" "$c" $flag)
    printf '%-36s %12s %12s %8s %8s\n' "pgbench $name c=$c tps" "$ot" "$pt" "$(python3 -c "print(f'{$ot/$pt:.2f}')")" "$of"
    printf '%-36s %12s %12s %8s\n' "pgbench $name c=$c latency ms" "$ol" "$pl" "$(python3 -c "print(f'{$ol/$pl:.2f}')")"
  done
done
# pgbench's invariants after all that: no update lost, none applied twice.
if command -v psql >/dev/null; then
  inv=$(psql -h 127.0.0.1 -p "$ours_port" -U postgres -Atc "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT coalesce(sum(delta), 0) FROM pgbench_history) AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT sum(bbalance) FROM pgbench_branches)" postgres)
  echo "pgbench invariants (ours): $([ "$inv" = t ] && echo hold || echo BROKEN)"
fi

if command -v sysbench >/dev/null; then
  for wl in oltp_point_select oltp_read_only oltp_write_only oltp_read_write; do
    for target in ours pg; do
      port=$ours_port; [ $target = pg ] && port=$pg_port
      opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$port --pgsql-user=postgres --pgsql-db=postgres --tables=1 --table-size=10000 --time=$DURATION"
      sysbench $wl $opts cleanup >/dev/null 2>&1 || true
      sysbench $wl $opts prepare >/dev/null 2>&1 || { echo "sysbench $wl prepare failed on $target"; continue 2; }
      sysbench $wl $opts run 2>/dev/null | awk '/transactions:/ {gsub(/\(/,"",$3); print $3} /avg:/ {print $2}' | paste -sd' ' > "$work/sb-$target"
    done
    read -r ot ol < "$work/sb-ours"; read -r pt pl < "$work/sb-pg"
    printf '%-36s %12s %12s %8s\n' "$wl tps" "$ot" "$pt" "$(python3 -c "print(f'{$ot/$pt:.2f}')")"
    printf '%-36s %12s %12s %8s\n' "$wl latency ms" "$ol" "$pl" "$(python3 -c "print(f'{$ol/$pl:.2f}')")"
  done
fi
