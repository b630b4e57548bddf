#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the PostgreSQL store tests (Debian's `postgresql` package).
#   eval "$(scripts/ci-postgres.sh start)"   starts one, prints `export HERMES_TEST_DATABASE_URL=…`
#                                             and `export HERMES_TEST_POSTGRES_DIR=…`
#   scripts/ci-postgres.sh stop DIR           stops it and removes DIR
# The cluster lives in a fresh temp directory, listens on 127.0.0.1 only, on a free port picked
# at start, with no Unix socket outside DIR. PostgreSQL refuses to run as root: when run as root
# the server runs as the `postgres` system user (created by the package).
set -euo pipefail

command_name="${1:-}"

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

as_owner() {
  if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command_name" in
  start)
    bin="$(find_bin)" || { echo "no PostgreSQL server under /usr/lib/postgresql/*/bin" >&2; exit 1; }
    dir="$(mktemp -d /tmp/hermes-pg-XXXXXX)"
    chmod 0755 "$dir"
    if [ "$(id -u)" = "0" ]; then chown postgres:postgres "$dir"; fi
    port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
    as_owner "$bin/initdb" -D "$dir/data" -U hermes --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    echo "export HERMES_TEST_DATABASE_URL=postgres://hermes@127.0.0.1:$port/postgres"
    echo "export HERMES_TEST_POSTGRES_DIR=$dir"
    ;;
  stop)
    dir="${2:?usage: ci-postgres.sh stop DIR}"
    bin="$(find_bin)" || exit 0
    if [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: ci-postgres.sh start | stop DIR" >&2
    exit 2
    ;;
esac
