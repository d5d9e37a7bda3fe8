#!/usr/bin/env bash
# Scores the server against PostgreSQL's regression corpus in
# ../shared/pg-regress: builds pgserver, starts it on a fresh data directory
# on a free loopback port, runs the corpus's runner, prints its summary.
# Extra arguments go to the runner (e.g. --diff, --only join,with).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${PG_REGRESS_DIR:-../shared/pg-regress}
command -v psql >/dev/null || { echo "pg-regress: psql not found (apt-get install postgresql-client)" >&2; exit 2; }
go build -o bin/pgserver ./cmd/pgserver
data=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# The corpus's tsdicts file builds dictionaries from PostgreSQL's sample
# files (ispell_sample.dict, synonym_sample.syn, ...), which PostgreSQL's
# server package installs in its tsearch_data; the server reads them there
# when they exist (PG_TSEARCH_DATA overrides the place).
tsearch=${PG_TSEARCH_DATA:-$(ls -d /usr/share/postgresql/*/tsearch_data 2>/dev/null | sort -V | tail -n 1)}
./bin/pgserver --listen "127.0.0.1:$port" --data-dir "$data" --log-level error ${tsearch:+--tsearch-data "$tsearch"} &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do
  (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break
  sleep 0.1
done
"$corpus/run" --host 127.0.0.1 --port "$port" "$@"
