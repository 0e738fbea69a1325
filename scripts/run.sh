#!/usr/bin/env bash
# Runs the product: the server with the web app on SQLite (./questline.sqlite), demo
# accounts created and printed on the first start. Options go to `questline serve`
# (see `scripts/run.sh --help`); DATABASE_URL=postgres://... selects PostgreSQL instead.
set -euo pipefail
cd "$(dirname "$0")/.."
# The toolchain lives in /opt/swift on this kind of machine; a login shell may not have it on PATH.
command -v swift >/dev/null || { [[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"; }
# The stories map draws with Leaflet from the system's packages (libjs-leaflet); without it
# the map is a server-drawn picture, so a machine where it cannot be installed still runs.
if [[ ! -f /usr/share/javascript/leaflet/leaflet.js ]]; then
  as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo -n "$@"; fi; }
  echo "Installing libjs-leaflet (the stories map) from the system's packages..."
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjs-leaflet >/dev/null 2>&1 ||
    { as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjs-leaflet >/dev/null 2>&1; } ||
    echo "Could not install libjs-leaflet: the stories map stays a plain picture."
fi
configuration="${QUESTLINE_BUILD:-debug}"
echo "Building questline ($configuration; the first build fetches and compiles dependencies, about 8 minutes on 2 cores)..."
swift build -c "$configuration" --product questline 2>&1 | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
exec "$(swift build -c "$configuration" --show-bin-path)/questline" serve "$@"
