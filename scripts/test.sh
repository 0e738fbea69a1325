#!/usr/bin/env bash
# Runs every test: unit, store (SQLite and PostgreSQL), HTTP, client, CLI and browser tests.
# Installs what is missing first (PostgreSQL, Chromium, chromedriver, nginx and Leaflet from the
# system's packages; pytest and selenium from PyPI), so it works on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
# The toolchain lives in /opt/swift on this kind of machine; a login shell may not have it on PATH.
command -v swift >/dev/null || { [[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"; }

# Each step's time is kept and the list shown at the end (and when a step fails).
STEP_NAME="" STEP_START=$SECONDS RUN_START=$SECONDS
STEP_TIMES=()
end_step() {
  [[ -n $STEP_NAME ]] && STEP_TIMES+=("$(printf '%5d s  %s' $((SECONDS - STEP_START)) "${STEP_NAME:0:100}")")
  STEP_NAME=""
}
step() { end_step; STEP_NAME="$*"; STEP_START=$SECONDS; printf '\n=== %s\n' "$*"; }
summary() {
  local status=$?
  end_step
  printf '\n=== Time per step (%d s in all%s)\n' $((SECONDS - RUN_START)) "$([[ $status -ne 0 ]] && echo ', stopped by a failure')"
  printf '%s\n' "${STEP_TIMES[@]}"
}
trap summary EXIT
# Runs independent checks at once (each a command line; they start their own servers on free
# ports and databases of their own), then shows each one's output in turn with its time. Fails
# when any of them failed. Most of these checks wait on servers, kills and the network more than
# they compute, so running them side by side shortens the run.
together() {
  local dir i=0 failed=0 rc took
  dir=$(mktemp -d /tmp/questline-together-XXXXXX)
  for command in "$@"; do
    (
      start=$SECONDS
      set +e
      bash -c "$command" >"$dir/$i.log" 2>&1
      echo "$? $((SECONDS - start))" >"$dir/$i.status"
    ) &
    i=$((i + 1))
  done
  wait
  for ((j = 0; j < i; j++)); do
    read -r rc took <"$dir/$j.status"
    printf -- '--- %s (%s s)\n' "${@:j+1:1}" "$took"
    cat "$dir/$j.log"
    if [[ $rc -ne 0 ]]; then echo "--- failed (exit $rc)"; failed=1; fi
  done
  rm -rf "$dir"
  return $failed
}
# Drops lines matching $1 (progress noise); never fails itself, so with pipefail a pipeline
# fails exactly when the command before it does.
drop() { grep -vE "$1" || true; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

step "Checking tools"
command -v swift >/dev/null || { echo "swift is not on PATH (expected /opt/swift or a toolchain)"; exit 1; }
missing=()
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
[[ -f /usr/share/javascript/leaflet/leaflet.js ]] || missing+=(libjs-leaflet)  # the stories map
# App icons are emoji: without a colour emoji font the screenshots show boxes.
[[ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]] || missing+=(fonts-noto-color-emoji)
if ((${#missing[@]})); then
  echo "Installing ${missing[*]} from the system's packages"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! python3 -c 'import pytest, selenium, schemathesis' 2>/dev/null; then
  echo "Installing pytest, selenium and schemathesis from PyPI"
  python3 -m pip install -q --disable-pip-version-check pytest selenium schemathesis
fi
# axe-core 4.12 for the browser tests: the wheel of axe-playwright-python carries its axe.min.js,
# which selenium injects (without Playwright: no dependencies are installed).
if ! python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("axe_playwright_python") is None)' 2>/dev/null; then
  echo "Installing axe-core (the wheel of axe-playwright-python, without its dependencies) from PyPI"
  python3 -m pip install -q --disable-pip-version-check --no-deps axe-playwright-python
fi

if [[ -n "${QUESTLINE_TEST_POSTGRES_URL:-}" ]]; then
  step "Using the configured PostgreSQL for the store suite"
else
  step "Starting a local PostgreSQL for the store suite"
  QUESTLINE_TEST_POSTGRES_URL="$(scripts/postgres.sh | tail -n 1)"
fi
export QUESTLINE_TEST_POSTGRES_URL QUESTLINE_REQUIRE_POSTGRES=1
echo "PostgreSQL at ${QUESTLINE_TEST_POSTGRES_URL%%\?*}"

step "Formatting: swift-format (the toolchain's) with .swift-format, 120 columns"
swift format lint --strict --recursive --parallel Sources Tests Benchmarks Package.swift \
  || { echo "Run: swift format format --in-place --recursive Sources Tests Benchmarks Package.swift"; exit 1; }

step "Message catalogs: every message noted, used and translated into every shipped language (scripts/l10n/catalog.py check)"
python3 scripts/l10n/catalog.py check

step "Building (debug, with tests)"
swift build --build-tests 2>&1 | drop '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Wrapping|Write|Linking|Running|Merging|Applying|Generating)' 

step "Swift tests: core; store and HTTP on SQLite and PostgreSQL; client; CLI"
swift test --skip-build 2>&1 | drop '^(◇ Test .* started\.|Test Case .* started)' 

BIN="$(swift build --show-bin-path)/questline"
PG="$QUESTLINE_TEST_POSTGRES_URL"
export BIN PG

step "QuestlineKit builds alone (Foundation, the core and the client: no server code)"
swift build --target QuestlineKit 2>&1 | drop '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Wrapping|Write|Linking|Running|Merging|Applying|Generating)'
python3 - <<'PY'
import json, subprocess
description = json.loads(subprocess.run(["swift", "package", "describe", "--type", "json"], capture_output=True, text=True, check=True).stdout)
targets = {t["name"]: t for t in description["targets"]}
seen, stack = set(), ["QuestlineKit"]
while stack:
    name = stack.pop()
    if name in seen or name not in targets:
        continue
    seen.add(name)
    stack += targets[name].get("target_dependencies", [])
server = seen & {"QuestlineServer", "QuestlineStore", "QuestlineFeatures", "QuestlineCLI"}
products = sorted({p for t in seen for p in targets[t].get("product_dependencies", [])})
if server:
    raise SystemExit(f"QuestlineKit depends on server code: {sorted(server)}")
print(f"QuestlineKit's targets: {sorted(seen)}; packages' products: {products}")
PY

step "Crash safety (SIGKILL under write load, 20 times on SQLite and 20 on PostgreSQL); the device on Linux (questline device run, QuestlineKit: server down at start, device and server killed mid-upload, a replay; the child equals one in-order delivery), on SQLite and PostgreSQL"
together \
  'python3 scripts/crash.py --bin "$BIN" --kills 20' \
  'python3 scripts/crash.py --bin "$BIN" --kills 20 --postgres "$PG"' \
  'python3 scripts/device.py --bin "$BIN"' \
  'python3 scripts/device.py --bin "$BIN" --postgres "$PG"'

step "Two instances on one PostgreSQL behind nginx (live events, idempotency, a kill, a fault after commit, shared limits); live streams: 1,000 over 100 households (scale.py data, on SQLite and on PostgreSQL through COPY), every event reaches every stream of its household and no other"
together \
  'python3 scripts/multi.py --bin "$BIN" --postgres "$PG"' \
  'python3 scripts/live.py --bin "$BIN" --streams 1000 --households 100 --writes 200 --rate 40' \
  'python3 scripts/live.py --bin "$BIN" --streams 1000 --households 100 --writes 200 --rate 40 --postgres "$PG"'

step "Webhooks (a local receiver checks signatures and drops duplicates; retries while it is down; SQLite and two instances on PostgreSQL); tracing (spans reach a local OTLP/HTTP collector stand-in, none without --otlp-endpoint); questline doctor (a migrated PostgreSQL passes, an unreachable one fails naming it); graceful shutdown (SIGTERM drains, /ready 503, before the server stops)"
together \
  'python3 scripts/webhooks.py --bin "$BIN" --postgres "$PG"' \
  'python3 scripts/tracing.py --bin "$BIN"' \
  'scripts/doctor-check.sh "$BIN" "$PG"' \
  'python3 scripts/drain.py --bin "$BIN"'

step "Boundary sweep (every operation with boundary values in every field, on SQLite and PostgreSQL); fuzzing the contract (schemathesis against /openapi.yaml of a running server)"
together \
  'python3 scripts/sweep.py --bin "$BIN"' \
  'python3 scripts/sweep.py --bin "$BIN" --postgres "$PG"' \
  'QUESTLINE_BIN="$BIN" EXAMPLES=25 scripts/fuzz.sh'

step "Browser tests: the real server in headless Chromium"
rm -rf e2e/screenshots && mkdir -p e2e/screenshots
# The ten slowest tests are listed after the results: where this step's time goes.
QUESTLINE_BIN="$BIN" python3 -m pytest e2e -q -p no:cacheprovider --durations=10
echo "Screenshots of every screen: e2e/screenshots/"
