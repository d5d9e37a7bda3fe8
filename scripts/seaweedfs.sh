#!/usr/bin/env bash
# SeaweedFS, the S3-compatible object store the s3:// remote tests run
# against (Apache-2.0, https://github.com/seaweedfs/seaweedfs). Shared by
# the tests (store/remotestore, versioning) and .ci/run.
#
#   scripts/seaweedfs.sh build    build weed once into the cache; print its path
#   scripts/seaweedfs.sh path     print the cached binary's path, or fail
#   scripts/seaweedfs.sh serve DIR S3_PORT [MASTER VOLUME FILER S3_GRPC MASTER_GRPC VOLUME_GRPC FILER_GRPC]
#                                 run weed in the foreground (exec) on 127.0.0.1,
#                                 storing in DIR, answering S3 on S3_PORT
#   scripts/seaweedfs.sh start DIR [S3_PORT]
#                                 serve in the background and wait until S3
#                                 answers; print the pid and the endpoint
#
# The binary is cached outside the repository, in
# ${PROLLYPG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/prollypg}/weed-$version,
# because it takes minutes to build (about 5 on 2 cores) and never changes
# for a version. `go install` refuses the module (its go.mod has replace
# directives), so the build downloads it with `go mod download` and builds
# ./weed inside a writable copy.
#
# PROLLYPG_WEED names another weed binary to serve with (and path to
# print); build ignores it.
#
# With AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set, serve gives weed an
# S3 identity with those keys, so requests must be signed with them (as on
# any real S3); without them weed accepts anonymous requests.
set -euo pipefail

version=v0.0.0-20261109003541-7506e5f91cd6
module=github.com/seaweedfs/seaweedfs
cache=${PROLLYPG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/prollypg}
bin=${PROLLYPG_WEED:-$cache/weed-$version}

usage() {
  sed -n '6,/^#$/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

build() {
  bin=$cache/weed-$version
  if [[ -x $bin ]]; then
    echo "$bin"
    return
  fi
  mkdir -p "$cache"
  # One build at a time: tests of two packages may ask at once.
  exec 9>"$cache/weed.lock"
  if command -v flock >/dev/null; then
    flock 9
  fi
  if [[ -x $bin ]]; then
    echo "$bin"
    return
  fi
  local dir src
  # Outside any module or workspace of ours: GOWORK and GOFLAGS=-mod=...
  # of the caller must not apply to weed's build.
  dir=$(cd "$cache" && GOWORK=off GOFLAGS= go mod download -json "$module@$version" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  if [[ -z $dir || ! -d $dir ]]; then
    echo "seaweedfs.sh: go mod download $module@$version gave no directory" >&2
    exit 1
  fi
  # work is global: the EXIT trap runs outside this function.
  work=$(mktemp -d "$cache/weed-build.XXXXXX")
  trap 'rm -rf "${work:-}"' EXIT
  src=$work/src
  cp -r "$dir" "$src"
  chmod -R u+w "$src"
  echo "seaweedfs.sh: building weed $version into $bin (several minutes, once)" >&2
  local start=$SECONDS
  (cd "$src" && GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=0 nice -n 10 go build -trimpath -o "$work/weed" ./weed)
  mv "$work/weed" "$bin"
  echo "seaweedfs.sh: built in $((SECONDS - start)) s" >&2
  echo "$bin"
}

serve() {
  [[ $# -ge 2 ]] || usage
  local dir=$1 s3=$2 master=${3:-9333} volume=${4:-8080} filer=${5:-8888}
  local s3grpc=${6:-$((s3 + 10000))} mgrpc=${7:-$((master + 10000))}
  local vgrpc=${8:-$((volume + 10000))} fgrpc=${9:-$((filer + 10000))}
  [[ -x $bin ]] || {
    echo "seaweedfs.sh: no weed binary at $bin; run: scripts/seaweedfs.sh build" >&2
    exit 1
  }
  mkdir -p "$dir"
  local auth=()
  if [[ -n ${AWS_ACCESS_KEY_ID:-} && -n ${AWS_SECRET_ACCESS_KEY:-} ]]; then
    # Keys are letters and digits in practice; JSON-escape the two
    # characters that could break the file anyway.
    local ak=${AWS_ACCESS_KEY_ID//\\/\\\\} sk=${AWS_SECRET_ACCESS_KEY//\\/\\\\}
    ak=${ak//\"/\\\"} sk=${sk//\"/\\\"}
    cat >"$dir/s3.json" <<EOF
{"identities": [{"name": "prollypg", "credentials": [{"accessKey": "$ak", "secretKey": "$sk"}],
  "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
EOF
    auth=(-s3.config="$dir/s3.json")
  fi
  # Every listener on 127.0.0.1 and on the ports given (the extra gateways
  # weed starts by default, Iceberg and Lance, are off); no telemetry.
  # Volumes of 64 MB, as many as the disk holds, instead of 30 GB ones:
  # a test's data is small, and its bucket gets volumes of its own.
  exec "$bin" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$dir" \
    -master.port="$master" -master.port.grpc="$mgrpc" -master.telemetry=false \
    -master.volumeSizeLimitMB=64 -volume.max=0 \
    -volume.port="$volume" -volume.port.grpc="$vgrpc" -volume.preStopSeconds=0 \
    -filer -filer.port="$filer" -filer.port.grpc="$fgrpc" \
    -s3 -s3.port="$s3" -s3.port.grpc="$s3grpc" -s3.port.iceberg=0 -s3.port.lance=0 \
    "${auth[@]}"
}

start() {
  [[ $# -ge 1 ]] || usage
  local dir=$1 s3=${2:-8333}
  mkdir -p "$dir"
  "$0" serve "$dir" "$s3" >"$dir/weed.log" 2>&1 &
  local pid=$!
  for _ in $(seq 150); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "seaweedfs.sh: weed exited; see $dir/weed.log" >&2
      exit 1
    fi
    # Any HTTP answer (an anonymous ListBuckets may be refused) means the
    # gateway is up.
    if curl -s -o /dev/null "http://127.0.0.1:$s3/"; then
      echo "pid $pid endpoint http://127.0.0.1:$s3"
      return
    fi
    sleep 0.2
  done
  echo "seaweedfs.sh: S3 did not answer on port $s3 within 30 s; see $dir/weed.log" >&2
  kill "$pid"
  exit 1
}

case ${1:-} in
build) build ;;
path)
  [[ -x $bin ]] || {
    echo "seaweedfs.sh: no weed binary at $bin; run: scripts/seaweedfs.sh build" >&2
    exit 1
  }
  echo "$bin"
  ;;
serve) shift && serve "$@" ;;
start) shift && start "$@" ;;
*) usage ;;
esac
