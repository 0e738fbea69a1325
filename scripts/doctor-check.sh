#!/usr/bin/env bash
# questline doctor against PostgreSQL: a migrated database passes; an unreachable one fails, and
# the report names it.
#     scripts/doctor-check.sh path/to/questline postgres://…
set -euo pipefail
bin=$1 url=$2
DATABASE_URL="$url" "$bin" doctor --feed-url none
report=$(mktemp /tmp/questline-doctor-XXXXXX)
trap 'rm -f "$report"' EXIT
if DATABASE_URL="postgres://questline:questline@127.0.0.1:1/none?sslmode=disable" "$bin" doctor --feed-url none >"$report"; then
  echo "doctor passed an unreachable database"
  exit 1
fi
if ! grep -q "cannot be reached" "$report"; then
  echo "doctor failed an unreachable database without naming it:"
  cat "$report"
  exit 1
fi
echo "doctor: the unreachable database is named"
