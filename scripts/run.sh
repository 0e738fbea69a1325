#!/usr/bin/env bash
# Runs the product: the server with the web app on SQLite (./questline.sqlite), demo
# accounts created and printed on the first start. Options go to `questline serve`
# (see `scripts/run.sh --help`); DATABASE_URL=postgres://... selects PostgreSQL instead.
set -euo pipefail
cd "$(dirname "$0")/.."
# The toolchain lives in /opt/swift on this kind of machine; a login shell may not have it on PATH.
command -v swift >/dev/null || { [[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"; }
configuration="${QUESTLINE_BUILD:-debug}"
echo "Building questline ($configuration; the first build fetches and compiles dependencies, about 8 minutes on 2 cores)..."
swift build -c "$configuration" --product questline 2>&1 | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
exec "$(swift build -c "$configuration" --show-bin-path)/questline" serve "$@"
