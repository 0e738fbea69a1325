#!/usr/bin/env bash
# Runs every test: unit, store (SQLite and PostgreSQL), HTTP, client, CLI and browser tests.
# Installs what is missing first (PostgreSQL, Chromium, chromedriver, nginx and Leaflet from the
# system's packages; pytest and selenium from PyPI), so it works on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
# The toolchain lives in /opt/swift on this kind of machine; a login shell may not have it on PATH.
command -v swift >/dev/null || { [[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"; }

step() { printf '\n=== %s\n' "$*"; }
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

step "Crash safety: SIGKILL under write load, 20 times on SQLite and 20 on PostgreSQL"
python3 scripts/crash.py --bin "$(swift build --show-bin-path)/questline" --kills 20
python3 scripts/crash.py --bin "$(swift build --show-bin-path)/questline" --kills 20 --postgres "$QUESTLINE_TEST_POSTGRES_URL"

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

step "The device on Linux (questline device run, QuestlineKit): server down at start, device and server killed mid-upload, a replay; the child equals one in-order delivery, on SQLite and PostgreSQL"
python3 scripts/device.py --bin "$(swift build --show-bin-path)/questline"
python3 scripts/device.py --bin "$(swift build --show-bin-path)/questline" --postgres "$QUESTLINE_TEST_POSTGRES_URL"

step "Two instances on one PostgreSQL behind nginx: live events, idempotency, a kill, a fault after commit, shared limits"
python3 scripts/multi.py --bin "$(swift build --show-bin-path)/questline" --postgres "$QUESTLINE_TEST_POSTGRES_URL"

step "Live streams: 1,000 over 100 households (scale.py data, on SQLite and on PostgreSQL through COPY); every event reaches every stream of its household and no other"
python3 scripts/live.py --bin "$(swift build --show-bin-path)/questline" --streams 1000 --households 100 --writes 200 --rate 40
python3 scripts/live.py --bin "$(swift build --show-bin-path)/questline" --streams 1000 --households 100 --writes 200 --rate 40 --postgres "$QUESTLINE_TEST_POSTGRES_URL"

step "Webhooks: a local receiver checks signatures and drops duplicates; retries while it is down; SQLite and two instances on PostgreSQL"
python3 scripts/webhooks.py --bin "$(swift build --show-bin-path)/questline" --postgres "$QUESTLINE_TEST_POSTGRES_URL"

step "Tracing: spans reach a local OTLP/HTTP collector stand-in (and none without --otlp-endpoint)"
python3 scripts/tracing.py --bin "$(swift build --show-bin-path)/questline"

step "questline doctor: a migrated PostgreSQL passes; an unreachable one fails, naming it"
DATABASE_URL="$QUESTLINE_TEST_POSTGRES_URL" "$(swift build --show-bin-path)/questline" doctor --feed-url none
if DATABASE_URL="postgres://questline:questline@127.0.0.1:1/none?sslmode=disable" "$(swift build --show-bin-path)/questline" doctor --feed-url none >/tmp/questline-doctor.txt; then
  echo "doctor passed an unreachable database"; exit 1
fi
grep -q "cannot be reached" /tmp/questline-doctor.txt && echo "doctor: the unreachable database is named"

step "Graceful shutdown: SIGTERM drains (/ready 503) before the server stops"
python3 scripts/drain.py --bin "$(swift build --show-bin-path)/questline"

step "Boundary sweep: every operation with boundary values in every field, on SQLite and PostgreSQL"
python3 scripts/sweep.py --bin "$(swift build --show-bin-path)/questline"
python3 scripts/sweep.py --bin "$(swift build --show-bin-path)/questline" --postgres "$QUESTLINE_TEST_POSTGRES_URL"

step "Fuzzing the contract: schemathesis against /openapi.yaml of a running server"
QUESTLINE_BIN="$(swift build --show-bin-path)/questline" EXAMPLES=25 scripts/fuzz.sh

step "Browser tests: the real server in headless Chromium"
rm -rf e2e/screenshots && mkdir -p e2e/screenshots
QUESTLINE_BIN="$(swift build --show-bin-path)/questline" python3 -m pytest e2e -q -p no:cacheprovider
echo "Screenshots of every screen: e2e/screenshots/"
