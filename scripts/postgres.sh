#!/usr/bin/env bash
# Starts a throwaway local PostgreSQL for the tests and prints its URL on the last line.
# Installs PostgreSQL from the system's packages when it is missing. Idempotent: a server
# already running on the port is reused. Stop it with: scripts/postgres.sh stop
set -euo pipefail

PORT="${QUESTLINE_PG_PORT:-55432}"
DATA="${QUESTLINE_PG_DATA:-/tmp/questline-test-pg}"
SOCKET_DIR="$DATA/socket"
URL="postgres://questline:questline@127.0.0.1:$PORT/questline_test?sslmode=disable"

log() { echo "[postgres] $*" >&2; }

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [[ -x "$dir/$1" ]] && { echo "$dir/$1"; return 0; }
  done
  command -v "$1" 2>/dev/null || return 1
}

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [[ "${1:-}" == "stop" ]]; then
  if PG_CTL=$(find_bin pg_ctl) && [[ -d "$DATA/db" ]]; then
    as_owner "$PG_CTL" -D "$DATA/db" -m fast stop >&2 || true
  fi
  exit 0
fi

if ! find_bin initdb >/dev/null; then
  log "PostgreSQL not found: installing it from the system's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
fi
INITDB=$(find_bin initdb)
PG_CTL=$(find_bin pg_ctl)
PSQL=$(command -v psql || find_bin psql)

if [[ $(id -u) -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
fi

mkdir -p "$DATA"
[[ $(id -u) -eq 0 ]] && chown postgres "$DATA"

if ! as_owner "$PG_CTL" -D "$DATA/db" status >/dev/null 2>&1; then
  if [[ ! -f "$DATA/db/PG_VERSION" ]]; then
    log "initialising a cluster in $DATA/db"
    as_owner "$INITDB" -D "$DATA/db" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null 2>&1 \
      || as_owner "$INITDB" -D "$DATA/db" -U postgres --auth=trust -E UTF8 >/dev/null
  fi
  as_owner mkdir -p "$SOCKET_DIR"
  log "starting on 127.0.0.1:$PORT"
  as_owner "$PG_CTL" -D "$DATA/db" -l "$DATA/server.log" -w -t 60 \
    -o "-p $PORT -k $SOCKET_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=1000" start >&2
fi

psql_admin() { as_owner "$PSQL" -h "$SOCKET_DIR" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA "$@"; }
if [[ -z $(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname='questline'") ]]; then
  psql_admin -c "CREATE ROLE questline LOGIN PASSWORD 'questline'"
fi
if [[ -z $(psql_admin -c "SELECT 1 FROM pg_database WHERE datname='questline_test'") ]]; then
  psql_admin -c "CREATE DATABASE questline_test OWNER questline"
fi
echo "$URL"
