#!/bin/sh
# Creates the cluster on first start (POSTGRES_USER with POSTGRES_PASSWORD, database POSTGRES_DB,
# password authentication over TCP), then runs the server in the foreground.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
bin=$(ls -d /usr/lib/postgresql/*/bin | head -1)
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password_file=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" >"$password_file"
  "$bin/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$password_file" \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$password_file"
  echo 'host all all 0.0.0.0/0 scram-sha-256' >>"$PGDATA/pg_hba.conf"
  echo 'host all all ::/0 scram-sha-256' >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    "$bin/pg_ctl" -D "$PGDATA" -w -o "-c listen_addresses=''" start >/dev/null
    "$bin/createdb" -U "$POSTGRES_USER" "$POSTGRES_DB"
    "$bin/pg_ctl" -D "$PGDATA" -w stop >/dev/null
  fi
fi
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*'
