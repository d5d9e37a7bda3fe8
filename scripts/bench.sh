#!/usr/bin/env bash
# Compares pgserver with a real PostgreSQL 15 on this machine, with pgbench
# and (when installed) sysbench: builds pgserver, starts it and a private
# PostgreSQL cluster on free loopback ports, runs the same workloads against
# both, and prints each figure with the ratio ours/PostgreSQL (latency: lower
# is better; tps: higher is better).
#
#   scripts/bench.sh
#   DURATION=30 RUNS=3 CLIENTS="1 4 16" SCALE=5 scripts/bench.sh
#
# Workloads: pgbench select-only (simple and prepared protocol),
# simple-update (-N), tpcb-like and an application's insert (app.sql
# below: serial keys, a unique column, a foreign key, RETURNING); sysbench oltp_point_select,
# oltp_read_only, oltp_write_only and oltp_read_write (SB_ROWS rows). Each
# runs at every client count of CLIENTS (default 1, 4 and 16: one client
# hides contention) against both servers, and prints tps, the ratio
# ours/PostgreSQL, p50 and p99 latency in ms, and failed transactions of
# each (the median of RUNS runs by tps).
#
# Needs postgresql-15 (server and pgbench); sysbench is optional
# (apt-get install -y sysbench).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
RUNS=${RUNS:-1}
SCALE=${SCALE:-1}
CLIENTS=${CLIENTS:-1 4 16}
SB_ROWS=${SB_ROWS:-10000}
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

# pct FILE... : prints "p50 p99" in ms of the latencies (µs, third field)
# of pgbench's per-transaction logs.
pct() {
  cat "$@" | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {if (NR == 0) {print "0 0"; exit}
    i50=int(NR*0.50); if (i50 < 1) i50=1; i99=int(NR*0.99); if (i99 < 1) i99=1
    printf "%.2f %.2f\n", a[i50]/1000, a[i99]/1000}'
}

# pgrun PORT CLIENTS ARGS...: prints "tps p50_ms p99_ms failed" (median of
# RUNS runs by tps).
pgrun() {
  local port=$1 clients=$2; shift 2
  for _ in $(seq "$RUNS"); do
    rm -f "$work"/pgbench_log.*
    local out
    out=$(cd "$work" && pgbench -h 127.0.0.1 -p "$port" -U postgres -n -c "$clients" -j 2 -T "$DURATION" -l --log-prefix=pgbench_log "$@" postgres 2>&1)
    echo "$(echo "$out" | awk '/^tps/ {tps=$3} /failed transactions/ {f=$5} END {print tps+0}') $(pct "$work"/pgbench_log.*) $(echo "$out" | awk '/failed transactions/ {f=$5} END {print f+0}')"
  done | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'
}

# sbrun PORT CLIENTS WORKLOAD: prints "tps p50_ms p99_ms failed" (median of
# RUNS runs by tps); failed counts the errors sysbench ignored (deadlocks,
# serialization failures) and retried.
sbrun() {
  local port=$1 clients=$2 wl=$3
  local opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$port --pgsql-user=postgres --pgsql-db=postgres --tables=1 --table-size=$SB_ROWS"
  for _ in $(seq "$RUNS"); do
    sysbench "$wl" $opts --threads="$clients" --time="$DURATION" --percentile=99 --histogram=on run 2>/dev/null | awk '
      /transactions:/ {gsub(/\(/, "", $3); tps=$3}
      /ignored errors:/ {failed=$3}
      /99th percentile:/ {p99=$3}
      /^ *[0-9.]+ \|/ {lat[++n]=$1; cnt[n]=$NF; total+=$NF}
      END {acc=0; p50=0; for (i=1; i<=n; i++) {acc+=cnt[i]; if (acc*2 >= total) {p50=lat[i]; break}}
        printf "%s %.2f %.2f %d\n", tps+0, p50, p99, failed}'
  done | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'
}

ratio() { python3 -c "print(f'{$1/$2:.2f}' if $2 else '-')"; }

# report NAME CLIENTS OURS PG: one line of the table.
report() {
  read -r ot o50 o99 of <<<"$3"; read -r pt p50 p99 pf <<<"$4"
  printf '%-30s %3s %9s %9s %6s %7s %7s %8s %8s %5s %5s\n' "$1" "$2" "$ot" "$pt" "$(ratio "$ot" "$pt")" "$o50" "$p50" "$o99" "$p99" "$of" "$pf"
}

echo "# $(date -u +%Y-%m-%d) $(git rev-parse --short HEAD) $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); DURATION=$DURATION RUNS=$RUNS SCALE=$SCALE"
printf '%-30s %3s %9s %9s %6s %7s %7s %8s %8s %5s %5s\n' workload c "ours tps" "pg tps" ratio "p50 ms" "p50 pg" "p99 ms" "p99 pg" fail "f pg"
for target in ours pg; do
  port=$ours_port; [ $target = pg ] && port=$pg_port
  pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s "$SCALE" -q postgres >"$work/init-$target.log" 2>&1 || {
    echo "pgbench -i failed on $target:"; tail -5 "$work/init-$target.log"; exit 1; }
done
for wl in "select-only:-S -M simple" "select-only prepared:-S -M prepared" "simple-update:-N -M prepared" "tpcb-like:-M prepared"; do
  name=${wl%%:*}; flags=${wl#*:}
  for c in $CLIENTS; do
    report "pgbench $name" "$c" "$(pgrun "$ours_port" "$c" $flags)" "$(pgrun "$pg_port" "$c" $flags)"
  done
done
# An application's write: a new customer (serial key, unique email) and
# its order (serial key, foreign key to it), the keys RETURNed, over the
# simple protocol, as ORMs that interpolate their values send it.
cat >"$work/app.sql" <<'SQL'
\set n random(1, 1000000000000)
BEGIN;
INSERT INTO app_customers (email) VALUES ('c' || :n || '@example.com') RETURNING id AS cid \gset
INSERT INTO app_orders (customer_id, total) VALUES (:cid, 10.50) RETURNING id;
END;
SQL
for port in "$ours_port" "$pg_port"; do
  psql -h 127.0.0.1 -p "$port" -U postgres -qc "DROP TABLE IF EXISTS app_orders, app_customers;
    CREATE TABLE app_customers (id serial PRIMARY KEY, email text NOT NULL UNIQUE, created timestamptz NOT NULL DEFAULT now());
    CREATE TABLE app_orders (id serial PRIMARY KEY, customer_id int NOT NULL REFERENCES app_customers (id), total numeric(10,2) NOT NULL, created timestamptz NOT NULL DEFAULT now())" postgres >/dev/null 2>&1
done
for c in $CLIENTS; do
  report "pgbench app insert" "$c" "$(pgrun "$ours_port" "$c" -f "$work/app.sql")" "$(pgrun "$pg_port" "$c" -f "$work/app.sql")"
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
      opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$port --pgsql-user=postgres --pgsql-db=postgres --tables=1 --table-size=$SB_ROWS"
      sysbench "$wl" $opts cleanup >/dev/null 2>&1 || true
      sysbench "$wl" $opts prepare >/dev/null 2>&1 || { echo "sysbench $wl prepare failed on $target"; continue 2; }
    done
    for c in $CLIENTS; do
      report "sysbench $wl" "$c" "$(sbrun "$ours_port" "$c" "$wl")" "$(sbrun "$pg_port" "$c" "$wl")"
    done
  done
else
  echo "sysbench not installed (apt-get install -y sysbench): sysbench workloads skipped"
fi
