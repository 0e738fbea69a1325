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
# The compiler's output (hundreds of lines of dependencies' warnings on a first build) goes to a
# log file; the terminal shows the build's progress in a few lines, and the errors if it fails.
mkdir -p .build
log=".build/run-build.log"
echo "Building questline ($configuration; the first build fetches and compiles dependencies, about 8 minutes on 2 cores)."
echo "The compiler's full output goes to $log."
swift build -c "$configuration" --product questline >"$log" 2>&1 &
build=$!
shown=-1
while kill -0 "$build" 2>/dev/null; do
  sleep 3
  step="$(grep -oE '^\[[0-9]+/[0-9]+\]' "$log" | tail -n 1 | tr -d '[]' || true)"
  if [[ -n $step ]]; then
    done_steps="${step%/*}"; all_steps="${step#*/}"
    tenth=$((done_steps * 10 / (all_steps > 0 ? all_steps : 1)))
    if ((tenth > shown)); then
      shown=$tenth
      echo "  built $((tenth * 10))% ($done_steps of $all_steps steps)"
    fi
  fi
done
if ! wait "$build"; then
  echo "The build failed. Its errors:"
  grep -E "error:" "$log" | sort -u | head -n 20
  echo "The full output is in $log."
  exit 1
fi
echo "Built. Starting the server..."
exec "$(swift build -c "$configuration" --show-bin-path)/questline" serve "$@"
